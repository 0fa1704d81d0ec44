#ifndef WKSTORE_CLZ4_SHIM_H
#define WKSTORE_CLZ4_SHIM_H
// liblz4's block format, for Firefox's mozLz4 files (sessionstore-backups/recovery.jsonlz4).
#include <lz4.h>
#endif
