import WebsiteData

/// A failure the tool reports on one line of standard error, with its exit status.
struct CLIError: Error, Sendable {
    /// The exit status: 1 for a failure, 2 for a usage error.
    let status: Int32
    /// The message, or `nil` when the command already reported what went wrong.
    let message: String?

    /// A usage error (exit 2): the command line asks for something that cannot be done.
    static func usage(_ message: String) -> CLIError { CLIError(status: ExitStatus.usage, message: message) }
    /// A failure (exit 1): the command was well formed but did not succeed.
    static func failure(_ message: String?) -> CLIError { CLIError(status: ExitStatus.failure, message: message) }

    /// For `--must-match`: a command that matched nothing fails (exit 1) with `message`, after
    /// printing what it prints anyway, so that a script can tell.
    static func requireMatch(_ matched: Bool, _ mustMatch: Bool, _ message: String) throws(CLIError) {
        if mustMatch && !matched { throw .failure(message + " (--must-match)") }
    }

    /// The error as the entry point would report it: the same exit status and message, so that
    /// a conversion in an option's declaration fails as the command itself would have.
    static func reporting(_ error: any Error) -> CLIError {
        let (status, message) = ExitStatus.report(error)
        return CLIError(status: status, message: message)
    }
}

/// The exit statuses of the tool.
enum ExitStatus {
    /// Success.
    static let success: Int32 = 0
    /// The command failed.
    static let failure: Int32 = 1
    /// The command line was wrong.
    static let usage: Int32 = 2

    /// The exit status and the message for any error a command throws.
    static func report(_ error: Error) -> (status: Int32, message: String?) {
        switch error {
        case let error as CLIError:
            return (error.status, error.message)
        case let error as StoreError:
            switch error {
            case .invalidArgument, .invalidSetting: return (usage, error.description)
            default: return (failure, error.description)
            }
        case let error as WebsiteDataTypeError:
            return (usage, error.description)
        case let error as CookieRejection:
            return (failure, error.description)
        case let error as CookieScriptError:
            return (error.code == .invalidMessageHandlerName ? usage : failure, error.description)
        case let error as DatabaseError:
            return (failure, error.description)
        case let error where FileErrorReason.isFoundationFileError(error):
            return (failure, FileErrorReason.message(error))
        case let error as CustomStringConvertible:
            return (failure, error.description)
        default:
            return (failure, "\(error)")
        }
    }
}
