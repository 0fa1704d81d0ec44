#ifndef WKSTORE_CSECRET_SHIM_H
#define WKSTORE_CSECRET_SHIM_H
// libsecret (the desktop keyring's Secret Service), for the password Chromium keeps there to
// encrypt its v11 cookie values.
//
// The few declarations used are written here instead of including <libsecret/secret.h>: its
// pkg-config flags carry -pthread, which SwiftPM refuses with a warning. The layouts are
// libsecret's public ABI (secret-schema.h: SecretSchema, SecretSchemaAttribute; enums are ints).
// secret_password_lookup_sync is variadic, which Swift cannot call, so one typed function wraps it.

typedef struct {
    const char *name;
    int type; /* SecretSchemaAttributeType: 0 is SECRET_SCHEMA_ATTRIBUTE_STRING */
} wk_secret_schema_attribute;

typedef struct {
    const char *name;
    int flags; /* SecretSchemaFlags: 2 is SECRET_SCHEMA_DONT_MATCH_NAME */
    wk_secret_schema_attribute attributes[32];
    int reserved; /* 0 for a static schema, which libsecret then never reference-counts */
    void *reserved1, *reserved2, *reserved3, *reserved4, *reserved5, *reserved6, *reserved7;
} wk_secret_schema;

char *secret_password_lookup_sync(const wk_secret_schema *schema, void *cancellable, void **error, ...);
void secret_password_free(char *password);
void g_error_free(void *error);

/// The password stored under Chromium's schema (components/os_crypt/sync/key_storage_libsecret.cc:
/// "chrome_libsecret_os_crypt_password_v2", attribute "application": "chromium" or "chrome"), or
/// NULL when there is none or the keyring cannot be reached. Free it with wk_secret_free.
static inline char *wk_secret_chromium_password(const char *application) {
    static const wk_secret_schema schema = {
        "chrome_libsecret_os_crypt_password_v2", 2, {{"application", 0}, {0, 0}}, 0, 0, 0, 0, 0, 0, 0, 0,
    };
    void *error = 0;
    char *password = secret_password_lookup_sync(&schema, 0, &error, "application", application, (char *)0);
    if (error != 0) {
        g_error_free(error);
        return 0;
    }
    return password;
}

/// Frees a password wk_secret_chromium_password returned.
static inline void wk_secret_free(char *password) { secret_password_free(password); }
#endif
