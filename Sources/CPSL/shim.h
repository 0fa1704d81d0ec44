#ifndef WKSTORE_CPSL_SHIM_H
#define WKSTORE_CPSL_SHIM_H
#include <libpsl.h>
#endif
