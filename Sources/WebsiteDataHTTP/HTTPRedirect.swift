import Foundation
import WebsiteData

/// The rules a redirect follows (Fetch, "HTTP-redirect fetch"; RFC 9110 15.4): which statuses
/// redirect, what becomes of the method and body, and what is dropped across origins.
public enum HTTPRedirect {
    /// Whether `status` is a redirect the client follows: 301, 302, 303, 307 or 308.
    ///
    /// - Parameter status: a response status code.
    /// - Returns: `true` for the five redirect statuses.
    public static func isRedirect(_ status: Int) -> Bool {
        status == 301 || status == 302 || status == 303 || status == 307 || status == 308
    }

    /// The method the next hop uses, and whether the body (and its header fields) go.
    ///
    /// 301 and 302 turn a `POST` into a `GET`; 303 turns every method but `HEAD` into `GET`;
    /// 307 and 308 keep the method and the body.
    ///
    /// - Parameters:
    ///   - status: the redirect status.
    ///   - method: the method of the request that was redirected.
    /// - Returns: the next method, and `true` when the body must be dropped.
    public static func nextMethod(after status: Int, method: String) -> (method: String, dropsBody: Bool) {
        if (status == 301 || status == 302) && method == "POST" { return ("GET", true) }
        if status == 303 && method != "GET" && method != "HEAD" { return ("GET", true) }
        return (method, false)
    }

    /// The header fields that describe a body, dropped with it (Fetch's request-body-header names, and `Content-Length`).
    public static let bodyHeaderNames = [
        "Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Location",
    ]

    /// The URL a `Location` value points to, resolved against the URL of the response carrying it.
    ///
    /// A `Location` without a fragment inherits the fragment of the URL it was resolved against.
    ///
    /// - Parameters:
    ///   - location: the `Location` field value.
    ///   - base: the URL of the redirect response.
    /// - Returns: the absolute URL.
    /// - Throws: `HTTPClientError.invalidRedirect` when the value is not a URL or not `http`/`https`.
    public static func target(of location: String, relativeTo base: URL) throws(HTTPClientError) -> URL {
        guard let resolved = URL(string: location, relativeTo: base)?.absoluteURL,
            let scheme = resolved.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = resolved.host(percentEncoded: true), !host.isEmpty
        else {
            throw HTTPClientError(
                .invalidRedirect,
                "redirect from \(base.absoluteString) to '\(location)', which is not an http or https URL", url: base)
        }
        if resolved.fragment == nil, let fragment = base.fragment(percentEncoded: true),
            var components = URLComponents(url: resolved, resolvingAgainstBaseURL: false)
        {
            components.percentEncodedFragment = fragment
            return components.url ?? resolved
        }
        return resolved
    }

    /// Whether two URLs have the same origin: scheme, host and port (default ports filled in).
    ///
    /// - Parameters:
    ///   - a: a URL.
    ///   - b: another URL.
    /// - Returns: `true` when scheme, host and port agree.
    public static func isSameOrigin(_ a: URL, _ b: URL) -> Bool {
        origin(a) == origin(b)
    }

    static func origin(_ url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(Site.canonicalHost(of: url) ?? ""):\(port)"
    }
}
