import Foundation
import WebsiteData

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPCookieStore {
    /// Stores the cookies of a Foundation response (`URLSession`), as received from `url`.
    ///
    /// Foundation on Linux joins repeated `Set-Cookie` fields into one value separated by
    /// commas; they are split again with `splitCombinedSetCookie(_:)`, which keeps the commas
    /// of `Expires` dates. (A cookie value that itself contains a comma followed by `name=`
    /// cannot be told apart from two cookies; Foundation has lost that information.)
    ///
    /// - Parameters:
    ///   - response: the response whose `Set-Cookie` fields to store.
    ///   - url: the URL the response came from; by default `response.url`.
    ///   - context: the request's context; a top-level navigation by default.
    /// - Returns: what was stored, deleted, refused and evicted.
    /// - Throws: a `StoreError` when the change could not be committed.
    @discardableResult
    public func setCookies(
        from response: HTTPURLResponse, for url: URL? = nil,
        context: CookieRequestContext = .topLevelNavigation
    ) throws -> CookieWriteSummary {
        guard let url = url ?? response.url,
            let combined = response.value(forHTTPHeaderField: "Set-Cookie")
        else { return CookieWriteSummary() }
        return try setCookies(fromSetCookieHeaders: Self.splitCombinedSetCookie(combined), for: url, context: context)
    }

    /// Splits a value that joins several `Set-Cookie` fields with commas back into the fields.
    ///
    /// A comma ends a cookie unless it follows the weekday of an `Expires` date
    /// (`Expires=Wed, 21 Oct 2037 07:28:00 GMT`).
    ///
    /// - Parameter combined: the joined value.
    /// - Returns: the `Set-Cookie` values, in order, surrounding whitespace removed.
    public static func splitCombinedSetCookie(_ combined: String) -> [String] {
        var result: [String] = []
        var current = ""
        var attribute = "" // the text since the last ';' or cookie start, to spot "expires=Wed"
        for character in combined {
            if character == "," {
                let trimmed = attribute.trimmingCharacters(in: .whitespaces).lowercased()
                if trimmed.hasPrefix("expires"), let equals = trimmed.firstIndex(of: "="),
                    trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces).allSatisfy(\.isLetter)
                {
                    current.append(character)
                    attribute.append(character)
                    continue
                }
                result.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
                attribute = ""
                continue
            }
            current.append(character)
            if character == ";" { attribute = "" } else { attribute.append(character) }
        }
        let last = current.trimmingCharacters(in: .whitespaces)
        if !last.isEmpty || !result.isEmpty { result.append(last) }
        return result.filter { !$0.isEmpty }
    }
}

extension URLRequest {
    /// Sets the request's `Cookie` field to the store's cookies for its URL, replacing any
    /// `Cookie` field it had (a redirected request still carries the previous hop's), or
    /// removing it when no cookie applies.
    ///
    /// Use it on a `URLSession` whose configuration has `httpShouldSetCookies = false` and
    /// `httpCookieStorage = nil`, for the first request and, in the task delegate's
    /// `willPerformHTTPRedirection`, for each redirect.
    ///
    /// - Parameters:
    ///   - store: the cookie store.
    ///   - context: the request's context; a top-level navigation by default.
    /// - Throws: a `StoreError` when the store cannot be read.
    public mutating func setCookieHeader(
        from store: HTTPCookieStore, context: CookieRequestContext = .topLevelNavigation
    ) throws {
        guard let url else { return }
        setValue(try store.cookieHeader(for: url, context: context), forHTTPHeaderField: "Cookie")
    }
}
