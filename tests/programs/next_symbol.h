/* The definition of `name` that a function of the same name, defined here, hides (the MPI, HDF5
 * or C library's): looked up at its first use, for the test programs that count or pass on
 * calls. */
#ifndef NEXT_SYMBOL_H
#define NEXT_SYMBOL_H

#include <dlfcn.h>

#define NEXT_SYMBOL(name) \
    ({ \
        static __typeof__(&name) next_; \
        if (!next_) \
            *(void **)&next_ = dlsym(RTLD_NEXT, #name); \
        next_; \
    })

#endif
