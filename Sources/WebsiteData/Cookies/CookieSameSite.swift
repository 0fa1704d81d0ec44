/// The SameSite attribute of a cookie, as written by the server.
///
/// Values follow the "SameSite" attribute processing of RFC 6265bis: the
/// attribute value is matched case-insensitively against `Strict`, `Lax`
/// and `None`; a missing attribute or any other value yields
/// ``unspecified``, which corresponds to the specification's "Default"
/// enforcement. The raw values are stable lower-case identifiers suitable
/// for storage and interchange.
public enum CookieSameSite: String, Sendable, Hashable, Codable, CaseIterable {
    /// No recognised SameSite attribute was present.
    ///
    /// This is the "Default" enforcement of RFC 6265bis; how it is treated
    /// (for example as `Lax`) is decided by the cookie policy, not here.
    case unspecified

    /// `SameSite=None`: the cookie is sent with cross-site requests.
    ///
    /// Browsers generally require such cookies to also be `Secure`; that
    /// check belongs to the cookie policy.
    case none

    /// `SameSite=Lax`: the cookie is withheld from cross-site subresource
    /// requests but sent on top-level navigations.
    ///
    /// This corresponds to the "Lax" enforcement of RFC 6265bis.
    case lax

    /// `SameSite=Strict`: the cookie is only sent with same-site requests.
    ///
    /// This corresponds to the "Strict" enforcement of RFC 6265bis.
    case strict
}
