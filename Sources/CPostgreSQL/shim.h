#ifndef WKSTORE_CPOSTGRESQL_SHIM_H
#define WKSTORE_CPOSTGRESQL_SHIM_H
#include <libpq-fe.h>
#endif
