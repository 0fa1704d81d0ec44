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
#endif
