#ifndef WKSTORE_CSECRET_SHIM_H
#define WKSTORE_CSECRET_SHIM_H
// libsecret (the desktop keyring's Secret Service), for the password Chromium keeps there to
// encrypt its v11 cookie values.
//
// libsecret is loaded when first asked (dlopen), not linked: linked, it and the GLib, GObject
// and GIO it needs would be loaded and initialised in every process, about 2 MB of resident
// memory that only a Chromium import uses. A machine without it then has no keyring password,
// as one without a keyring.
//
// The few declarations used are written here instead of including <libsecret/secret.h>: its
// pkg-config flags carry -pthread, which SwiftPM refuses with a warning. The layouts are
// libsecret's public ABI (secret-schema.h: SecretSchema, SecretSchemaAttribute; enums are ints).
// secret_password_lookup_sync is variadic, which Swift cannot call, so one typed function wraps it.

#include <dlfcn.h>
#include <stddef.h>

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

typedef char *(*wk_secret_lookup_function)(const wk_secret_schema *schema, void *cancellable, void **error, ...);
typedef void (*wk_secret_free_function)(void *pointer);

/// libsecret's library, loaded once and kept (a password it returned is freed by it), or NULL
/// when it is not installed.
static inline void *wk_secret_library(void) {
    static void *library = NULL;
    static int tried = 0;
    if (!__atomic_load_n(&tried, __ATOMIC_ACQUIRE)) {
        void *loaded = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL);
        void *expected = NULL;
        if (!__atomic_compare_exchange_n(&library, &expected, loaded, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) && loaded) {
            dlclose(loaded); /* another thread's load won: dlopen counts references */
        }
        __atomic_store_n(&tried, 1, __ATOMIC_RELEASE);
    }
    return __atomic_load_n(&library, __ATOMIC_ACQUIRE);
}

/// The password stored under Chromium's schema (components/os_crypt/sync/key_storage_libsecret.cc:
/// "chrome_libsecret_os_crypt_password_v2", attribute "application": "chromium" or "chrome"), or
/// NULL when there is none, the keyring cannot be reached or libsecret is not installed. Free it
/// with wk_secret_free.
static inline char *wk_secret_chromium_password(const char *application) {
    static const wk_secret_schema schema = {
        "chrome_libsecret_os_crypt_password_v2", 2, {{"application", 0}, {0, 0}}, 0, 0, 0, 0, 0, 0, 0, 0,
    };
    void *library = wk_secret_library();
    if (library == NULL) return NULL;
    wk_secret_lookup_function lookup = (wk_secret_lookup_function)dlsym(library, "secret_password_lookup_sync");
    /* g_error_free is GLib's, found through libsecret's dependencies. */
    wk_secret_free_function error_free = (wk_secret_free_function)dlsym(library, "g_error_free");
    if (lookup == NULL || error_free == NULL) return NULL;
    void *error = NULL;
    char *password = lookup(&schema, NULL, &error, "application", application, (char *)NULL);
    if (error != NULL) {
        error_free(error);
        return NULL;
    }
    return password;
}

/// Frees a password wk_secret_chromium_password returned.
static inline void wk_secret_free(char *password) {
    wk_secret_free_function free_password =
        (wk_secret_free_function)dlsym(wk_secret_library(), "secret_password_free");
    if (free_password != NULL) free_password(password);
}
#endif
