#ifndef WKSTORE_CSQLITE_SHIM_H
#define WKSTORE_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
static inline void (*wk_sqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }

/// sqlite3_db_config is variadic; these are the two uses the store needs.
static inline int wk_sqlite_db_config_int(sqlite3 *db, int op, int value) {
    int out = 0;
    return sqlite3_db_config(db, op, value, &out);
}

#include <stdint.h>

/// The store's change counter lives in a small file every process on the store maps into
/// memory (ChangeCounter.swift); these read and bump it atomically.
static inline uint64_t wk_atomic_load_u64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void wk_atomic_increment_u64(uint64_t *p) { (void)__atomic_fetch_add(p, 1, __ATOMIC_ACQ_REL); }
#endif
