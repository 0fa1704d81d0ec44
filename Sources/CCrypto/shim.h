#ifndef WKSTORE_CCRYPTO_SHIM_H
#define WKSTORE_CCRYPTO_SHIM_H
// OpenSSL's libcrypto: PBKDF2-HMAC-SHA1, AES-128-CBC and SHA-256, for the cookies of browser
// profiles (Chromium's os_crypt on Linux).
#include <openssl/evp.h>
#include <openssl/sha.h>
#endif
