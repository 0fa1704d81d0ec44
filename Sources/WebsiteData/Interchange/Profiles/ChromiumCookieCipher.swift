import CCrypto
import Foundation

/// Chromium's cookie encryption on Linux (`os_crypt`): a `v10` or `v11` prefix, then AES-128-CBC
/// with a key made by PBKDF2-HMAC-SHA1 from a password (salt `saltysalt`, 1 iteration, 16 bytes),
/// an IV of 16 spaces and PKCS#7 padding.
///
/// `v10` values use the password `peanuts`; `v11` values use the password Chromium keeps in the
/// desktop keyring ("Chromium Safe Storage", "Chrome Safe Storage"), or the empty password when
/// no keyring was reachable when the value was written. From cookie database schema 24 on, the
/// plaintext starts with the SHA-256 of the cookie's `host_key`, which ties a value to its row.
struct ChromiumCookieCipher: Sendable {
    /// The 16-byte AES key.
    let key: [UInt8]

    /// The password of `v10` values.
    static let v10Password = "peanuts"
    /// The password Chromium uses for `v11` values when no keyring was reachable.
    static let emptyKeyringPassword = ""

    /// The cipher of a password.
    init(password: String) {
        var key = [UInt8](repeating: 0, count: 16)
        let salt = Array("saltysalt".utf8)
        password.withCString { text in
            _ = PKCS5_PBKDF2_HMAC_SHA1(text, Int32(password.utf8.count), salt, Int32(salt.count), 1, 16, &key)
        }
        self.key = key
    }

    private static let iv = [UInt8](repeating: 0x20, count: 16)

    /// The SHA-256 of `text`'s UTF-8 bytes.
    static func sha256(_ text: String) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let bytes = Array(text.utf8)
        _ = SHA256(bytes, bytes.count, &digest)
        return digest
    }

    /// Decrypts the bytes after the `v10`/`v11` prefix.
    ///
    /// - Parameters:
    ///   - ciphertext: the encrypted bytes, without the prefix.
    ///   - hostKey: the row's `host_key`, whose SHA-256 starts the plaintext when `hashed`.
    ///   - hashed: whether the database's schema (24 and later) puts that hash first.
    /// - Returns: the value, or `nil` when this key does not decrypt it: bad padding, a hash that
    ///   does not match, or bytes that are not UTF-8. A wrong key never yields a value.
    func decrypt(_ ciphertext: ArraySlice<UInt8>, hostKey: String, hashed: Bool) -> String? {
        guard !ciphertext.isEmpty, ciphertext.count % 16 == 0 else { return nil }
        guard var plain = crypt(Array(ciphertext), encrypt: false) else { return nil }
        if hashed {
            guard plain.count >= 32, Array(plain[0..<32]) == Self.sha256(hostKey) else { return nil }
            plain.removeFirst(32)
        }
        return String(validating: plain, as: UTF8.self)
    }

    /// Encrypts a value as Chromium's schema 24 stores it: the SHA-256 of `hostKey`, then the value.
    ///
    /// - Parameters:
    ///   - value: the cookie value.
    ///   - hostKey: the row's `host_key`.
    /// - Returns: the ciphertext, without the `v10` prefix.
    func encrypt(_ value: String, hostKey: String) -> [UInt8] {
        crypt(Self.sha256(hostKey) + Array(value.utf8), encrypt: true) ?? []
    }

    /// AES-128-CBC with PKCS#7 padding, one way or the other; `nil` when decryption finds bad padding.
    private func crypt(_ input: [UInt8], encrypt: Bool) -> [UInt8]? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_CipherInit_ex(context, EVP_aes_128_cbc(), nil, key, Self.iv, encrypt ? 1 : 0) == 1 else {
            return nil
        }
        var output = [UInt8](repeating: 0, count: input.count + 32)
        var written: Int32 = 0
        var final: Int32 = 0
        let ok = output.withUnsafeMutableBufferPointer { out -> Bool in
            guard EVP_CipherUpdate(context, out.baseAddress, &written, input, Int32(input.count)) == 1 else {
                return false
            }
            return EVP_CipherFinal_ex(context, out.baseAddress! + Int(written), &final) == 1
        }
        guard ok else { return nil }
        return Array(output[0..<Int(written + final)])
    }
}
