#ifndef WKSTORE_CLEVELDB_SHIM_H
#define WKSTORE_CLEVELDB_SHIM_H
// LevelDB's C interface, for Chromium's localStorage ("Local Storage/leveldb").
#include <leveldb/c.h>
#endif
