// Opens each group of libraries once per process; see CLazyLibraries.h.
#include "CLazyLibraries.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <vips/version.h>
// The versions built against, which the cache key names (CNativeVersions): a library opened
// here must be that version.
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <libheif/heif_version.h>
#include <pango/pango-features.h>
#include <qpdf/DLL.h>

enum { max_files = 5 };

/// One group: its files (by soname, searched the way the dynamic loader searches) and
/// what opening them gave.
typedef struct Group {
    const char *name;
    const char *files[max_files];
    pthread_once_t once;
    void *handles[max_files];
    atomic_int loaded;
    char error[512];
} Group;

static Group groups[] = {
    [CLazyLibraries_glib] = {"GLib",
                             {"libgobject-2.0.so.0", "libgmodule-2.0.so.0", "libglib-2.0.so.0"},
                             PTHREAD_ONCE_INIT},
    [CLazyLibraries_libvips] = {"libvips", {"libvips.so.42"}, PTHREAD_ONCE_INIT},
    [CLazyLibraries_text] = {"Pango",
                             {"libpangocairo-1.0.so.0", "libpangoft2-1.0.so.0", "libpango-1.0.so.0", "libcairo.so.2",
                              "libfontconfig.so.1"},
                             PTHREAD_ONCE_INIT},
    [CLazyLibraries_heif] = {"libheif", {"libheif.so.1"}, PTHREAD_ONCE_INIT},
    [CLazyLibraries_qpdf] = {"libqpdf", {"libqpdf.so.29"}, PTHREAD_ONCE_INIT},
};

/// `name` in any file of the group `context` points at (NULL when none has it).
static void *find(void *context, const char *name) {
    Group *group = context;
    for (int index = 0; index < max_files && group->handles[index]; index++) {
        void *address = dlsym(group->handles[index], name);
        if (address) return address;
    }
    return NULL;
}

/// Opens every file of `group`, then checks that every function of the table resolves in
/// it (and, for libvips, that it is the version cardrender was compiled against, which
/// cache keys name). RTLD_GLOBAL, as linking would: modules the libraries open later
/// (libvips's HEIF module, GdkPixbuf loaders) may rely on their symbols. RTLD_LAZY:
/// functions are bound when first called, as for linked libraries.
static void open_group(CLazyLibraries_Library library) {
    Group *group = &groups[library];
    const char *override = library == CLazyLibraries_libvips ? getenv("CARDRENDER_LIBVIPS") : NULL;
    for (int index = 0; index < max_files && group->files[index]; index++) {
        // An operator may point cardrender at another libvips build (and tests at none).
        const char *file = override ? override : group->files[index];
        group->handles[index] = dlopen(file, RTLD_LAZY | RTLD_GLOBAL);
        if (!group->handles[index]) {
            const char *reason = dlerror();
            snprintf(group->error, sizeof group->error, "%s could not be loaded: %s", group->name,
                     reason ? reason : file);
            return;
        }
    }
    const char *missing = CLazyLibraries_first_missing(library, find, group);
    if (missing) {
        snprintf(group->error, sizeof group->error,
                 "%s (%s) has no function %s: another version of it is installed than cardrender was built for",
                 group->name, override ? override : group->files[0], missing);
        return;
    }
    // The other groups' versions, as strings or numbers from their own functions.
    static const struct {
        CLazyLibraries_Library library;
        const char *function, *compiled;
    } versions[] = {
        {CLazyLibraries_heif, "heif_get_version", LIBHEIF_VERSION},
        {CLazyLibraries_qpdf, "qpdf_get_qpdf_version", QPDF_VERSION},
        {CLazyLibraries_text, "pango_version_string", PANGO_VERSION_STRING},
        {CLazyLibraries_text, "cairo_version_string", CAIRO_VERSION_STRING},
    };
    for (size_t index = 0; index < sizeof versions / sizeof versions[0]; index++) {
        if (versions[index].library != library) continue;
        const char *(*version)(void) = (const char *(*)(void))find(group, versions[index].function);
        const char *runtime = version ? version() : "of unknown version";
        if (!version || strcmp(runtime, versions[index].compiled) != 0) {
            snprintf(group->error, sizeof group->error,
                     "%s is %s, but cardrender was built against %s, which its cache keys name: refused (rebuild "
                     "cardrender against it instead)",
                     group->name, runtime, versions[index].compiled);
            return;
        }
    }
    if (library == CLazyLibraries_text) {
        int (*version)(void) = (int (*)(void))find(group, "FcGetVersion");
        if (!version || version() != FC_VERSION) {
            snprintf(group->error, sizeof group->error,
                     "fontconfig is version %d, but cardrender was built against %d, which its cache keys name: "
                     "refused",
                     version ? version() : -1, FC_VERSION);
            return;
        }
    }
    if (library == CLazyLibraries_libvips) {
        int (*version)(int) = (int (*)(int))find(group, "vips_version");
        int major = version ? version(0) : -1, minor = version ? version(1) : -1, micro = version ? version(2) : -1;
        if (major != VIPS_MAJOR_VERSION || minor != VIPS_MINOR_VERSION || micro != VIPS_MICRO_VERSION) {
            snprintf(group->error, sizeof group->error,
                     "libvips (%s) is %d.%d.%d, but cardrender was built against %s, which its cache keys "
                     "name: refused (rebuild cardrender against that libvips instead)",
                     override ? override : group->files[0], major, minor, micro, VIPS_VERSION);
            return;
        }
    }
    atomic_store_explicit(&group->loaded, 1, memory_order_release);
}

static void open_glib(void) { open_group(CLazyLibraries_glib); }
static void open_libvips(void) { open_group(CLazyLibraries_libvips); }
static void open_text(void) { open_group(CLazyLibraries_text); }
static void open_heif(void) { open_group(CLazyLibraries_heif); }
static void open_qpdf(void) { open_group(CLazyLibraries_qpdf); }

int CLazyLibraries_load(CLazyLibraries_Library library, const char **error) {
    static void (*const openers[])(void) = {open_glib, open_libvips, open_text, open_heif, open_qpdf};
    Group *group = &groups[library];
    // libvips's and Pango's functions take GLib's: GLib is checked first, so its message
    // names GLib (and no GLib function is resolved lazily, on a worker, after the load).
    if ((library == CLazyLibraries_libvips || library == CLazyLibraries_text) &&
        CLazyLibraries_load(CLazyLibraries_glib, error) != 0)
        return -1;
    pthread_once(&group->once, openers[library]);
    if (atomic_load_explicit(&group->loaded, memory_order_acquire)) return 0;
    if (error) *error = group->error;
    return -1;
}

int CLazyLibraries_is_loaded(CLazyLibraries_Library library) {
    return atomic_load_explicit(&groups[library].loaded, memory_order_acquire);
}

/// Prints `message` and ends the process: reached only by a call that did not load its
/// library first (every entry point of cardrender does, and throws the message instead).
static _Noreturn void stop(const char *message) {
    fprintf(stderr, "cardrender: %s\n", message);
    fflush(stderr);
    _exit(70);
}

void *CLazyLibraries_symbol(CLazyLibraries_Library library, const char *name) {
    const char *error = NULL;
    if (CLazyLibraries_load(library, &error) != 0) stop(error);
    void *address = find(&groups[library], name);
    // Unreachable: the load resolved every function of the table for this group.
    if (!address) stop(name);
    return address;
}
