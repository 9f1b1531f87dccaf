// The functions cardrender calls in GLib, libvips, Pango/cairo/fontconfig, libheif and libqpdf, each opening
// its library on first use; see CLazyLibraries.h. Each definition has the prototype of
// the library's own header, so a mismatch is a compile error. The list is what our objects
// leave undefined against those libraries (`nm -u`); a function missing here makes the
// link fail (the libraries are not linked), never a silent fallback.
//
// Every definition here is hidden: not exported, so never preferred over the library's own.
#pragma GCC visibility push(hidden)

#include <fontconfig/fontconfig.h>
#include <gmodule.h>
#include <libheif/heif.h>
#include <pango/pangocairo.h>
#include <pango/pangofc-font.h>
#include <pango/pangofc-fontmap.h>
#include <qpdf/qpdf-c.h>
#include <stdatomic.h>
#include <vips/vips.h>

#include "CLazyLibraries.h"

// Each function's address, looked up once.
#define FUNCTION(group, type, name, parameters, arguments) static _Atomic(void *) slot_##name;
#define PROCEDURE(group, name, parameters, arguments) static _Atomic(void *) slot_##name;
#define VARIADIC(group, name) static _Atomic(void *) slot_##name;
#include "CLazyLibraries.inc"
#undef FUNCTION
#undef PROCEDURE
#undef VARIADIC

/// The address of `name` in `library`, looked up once and kept in `slot`.
static void *resolved(CLazyLibraries_Library library, const char *name, _Atomic(void *) *slot) {
    void *function = atomic_load_explicit(slot, memory_order_acquire);
    if (!function) {
        function = CLazyLibraries_symbol(library, name);
        atomic_store_explicit(slot, function, memory_order_release);
    }
    return function;
}

// The definitions: each forwards to the library's own function.
#define FUNCTION(group, type, name, parameters, arguments) \
    type name parameters { return ((__typeof__(&name))resolved(CLazyLibraries_##group, #name, &slot_##name))arguments; }
#define PROCEDURE(group, name, parameters, arguments) \
    void name parameters { ((__typeof__(&name))resolved(CLazyLibraries_##group, #name, &slot_##name)) arguments; }
#define VARIADIC(group, name) \
    void *CLazyLibraries_variadic_##name(void) { return resolved(CLazyLibraries_##group, #name, &slot_##name); }
#include "CLazyLibraries.inc"
#undef FUNCTION
#undef PROCEDURE
#undef VARIADIC

/// Every function of the table, with its group.
typedef struct Entry {
    CLazyLibraries_Library library;
    const char *name;
} Entry;

#define FUNCTION(group, type, name, parameters, arguments) {CLazyLibraries_##group, #name},
#define PROCEDURE(group, name, parameters, arguments) {CLazyLibraries_##group, #name},
#define VARIADIC(group, name) {CLazyLibraries_##group, #name},
static const Entry entries[] = {
#include "CLazyLibraries.inc"
};
#undef FUNCTION
#undef PROCEDURE
#undef VARIADIC

const char *CLazyLibraries_first_missing(CLazyLibraries_Library library, void *(*lookup)(void *, const char *),
                                         void *context) {
    for (size_t index = 0; index < sizeof entries / sizeof entries[0]; index++) {
        if (entries[index].library == library && !lookup(context, entries[index].name)) return entries[index].name;
    }
    return 0;
}

int CLazyLibraries_count(CLazyLibraries_Library library) {
    int count = 0;
    for (size_t index = 0; index < sizeof entries / sizeof entries[0]; index++)
        count += entries[index].library == library;
    return count;
}

#pragma GCC visibility pop
