import Foundation

/// One `document.cookie` write by page script, as the document-start script reports it:
/// `{"cookie": "<the string written>", "url": "<location.href>"}`.
///
/// Decode it from a WebKit `WKScriptMessage.body`, a Playwright binding argument or JSON text, then
/// store it with `HTTPCookieStore.ingestDocumentCookieReport(_:frameURL:context:)`.
public struct DocumentCookieReport: Sendable, Hashable, Codable {
    /// The string the page assigned to `document.cookie` (`name=value; path=/; …`).
    public var cookie: String
    /// The URL of the document that wrote it.
    public var url: URL

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - cookie: the string assigned to `document.cookie`.
    ///   - url: the URL of the document that assigned it.
    public init(cookie: String, url: URL) {
        self.cookie = cookie
        self.url = url
    }

    /// Decodes a report from a script message body.
    ///
    /// Accepts what bridges deliver: a dictionary (`[String: Any]`, `NSDictionary`, as WebKit's
    /// `WKScriptMessage.body` gives a JavaScript object), or JSON text as `String` or `Data`
    /// (as a binding that stringifies its argument gives it). `cookie` must be a string and `url`
    /// a string (or `URL`) holding an absolute URL.
    ///
    /// - Parameters:
    ///   - messageBody: the message body.
    /// - Throws: `CookieScriptError.Code.malformedReport` when the body is not such an object.
    public init(messageBody: Any) throws {
        switch messageBody {
        case let report as DocumentCookieReport:
            self = report
        case let text as String:
            try self.init(json: Data(text.utf8))
        case let data as Data:
            try self.init(json: data)
        case let dictionary as [String: Any]:
            try self.init(fields: dictionary)
        case let dictionary as [AnyHashable: Any]:
            var fields: [String: Any] = [:]
            for (key, value) in dictionary { if let key = key.base as? String { fields[key] = value } }
            try self.init(fields: fields)
        default:
            throw CookieScriptError(
                .malformedReport, detail: "the message body is a \(type(of: messageBody)), not an object")
        }
    }

    /// Decodes a report from JSON text: `{"cookie": "…", "url": "…"}`.
    ///
    /// - Parameters:
    ///   - json: the UTF-8 JSON text.
    /// - Throws: `CookieScriptError.Code.malformedReport` when it is not such an object.
    public init(json: Data) throws {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
        } catch {
            throw CookieScriptError(.malformedReport, detail: "not JSON")
        }
        guard let fields = object as? [String: Any] else {
            throw CookieScriptError(.malformedReport, detail: "the JSON is not an object")
        }
        try self.init(fields: fields)
    }

    private init(fields: [String: Any]) throws {
        guard let cookie = fields["cookie"] as? String else {
            throw CookieScriptError(.malformedReport, detail: "\"cookie\" is missing or not a string")
        }
        let url: URL
        if let given = fields["url"] as? URL {
            url = given
        } else if let text = fields["url"] as? String {
            url = try Self.absoluteURL(text)
        } else {
            throw CookieScriptError(.malformedReport, detail: "\"url\" is missing or not a string")
        }
        self.init(cookie: cookie, url: url)
    }

    private static func absoluteURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else {
            throw CookieScriptError(
                .malformedReport, detail: "\"url\" is not an absolute URL: \(text.debugDescription)")
        }
        return url
    }

    private enum CodingKeys: String, CodingKey {
        case cookie, url
    }

    /// Decodes `{"cookie": String, "url": String}`.
    ///
    /// - Parameters:
    ///   - decoder: the decoder.
    /// - Throws: a `DecodingError` for missing or mistyped fields; `CookieScriptError.Code.malformedReport`
    ///   for a URL that is not absolute.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        cookie = try container.decode(String.self, forKey: .cookie)
        url = try Self.absoluteURL(try container.decode(String.self, forKey: .url))
    }

    /// Encodes `{"cookie": String, "url": String}`, the shape the document-start script posts.
    ///
    /// - Parameters:
    ///   - encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cookie, forKey: .cookie)
        try container.encode(url.absoluteString, forKey: .url)
    }
}
