#ifndef WKSTORE_WEBSITE_DATA_SUPPORT_H
#define WKSTORE_WEBSITE_DATA_SUPPORT_H

/// Asks the processor to start loading the cache line holding `address`, for reading, without
/// waiting for it: a hint, which never faults, whatever the address. Swift has no spelling of
/// its own for a prefetch; the call is inlined where it is made.
static inline __attribute__((always_inline)) void wkstore_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
