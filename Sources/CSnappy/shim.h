#ifndef WKSTORE_CSNAPPY_SHIM_H
#define WKSTORE_CSNAPPY_SHIM_H
// Snappy's C interface, for the compressed values of Firefox's localStorage (ls/data.sqlite).
#include <snappy-c.h>
#endif
