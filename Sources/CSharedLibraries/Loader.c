// Opens each group of libraries once per process; see CSharedLibraries.h.
#include "CSharedLibraries.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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
    [CSharedLibraries_glib] = {"GLib", {"libgobject-2.0.so.0", "libgmodule-2.0.so.0", "libglib-2.0.so.0"},
                               PTHREAD_ONCE_INIT},
    [CSharedLibraries_libvips] = {"libvips", {"libvips.so.42"}, PTHREAD_ONCE_INIT},
    [CSharedLibraries_text] = {"Pango", {"libpangocairo-1.0.so.0", "libpangoft2-1.0.so.0", "libpango-1.0.so.0",
                                         "libcairo.so.2", "libfontconfig.so.1"},
                               PTHREAD_ONCE_INIT},
    [CSharedLibraries_heif] = {"libheif", {"libheif.so.1"}, PTHREAD_ONCE_INIT},
    [CSharedLibraries_qpdf] = {"libqpdf", {"libqpdf.so.29"}, PTHREAD_ONCE_INIT},
};

/// Opens every file of `group`. RTLD_GLOBAL, as linking would: modules the libraries open
/// later (libvips's HEIF module, GdkPixbuf loaders) may rely on their symbols. RTLD_LAZY:
/// functions are bound when first called, as for linked libraries.
static void open_group(Group *group) {
    for (int index = 0; index < max_files && group->files[index]; index++) {
        const char *file = group->files[index];
        // An operator may point cardrender at another libvips build (and tests at none).
        if (group == &groups[CSharedLibraries_libvips] && getenv("CARDRENDER_LIBVIPS"))
            file = getenv("CARDRENDER_LIBVIPS");
        group->handles[index] = dlopen(file, RTLD_LAZY | RTLD_GLOBAL);
        if (!group->handles[index]) {
            const char *reason = dlerror();
            snprintf(group->error, sizeof group->error, "%s could not be loaded: %s", group->name,
                     reason ? reason : file);
            return;
        }
    }
    atomic_store_explicit(&group->loaded, 1, memory_order_release);
}

static void open_glib(void) { open_group(&groups[CSharedLibraries_glib]); }
static void open_libvips(void) { open_group(&groups[CSharedLibraries_libvips]); }
static void open_text(void) { open_group(&groups[CSharedLibraries_text]); }
static void open_heif(void) { open_group(&groups[CSharedLibraries_heif]); }
static void open_qpdf(void) { open_group(&groups[CSharedLibraries_qpdf]); }

int CSharedLibraries_load(CSharedLibraries_Library library, const char **error) {
    static void (*const openers[])(void) = {open_glib, open_libvips, open_text, open_heif, open_qpdf};
    Group *group = &groups[library];
    pthread_once(&group->once, openers[library]);
    if (atomic_load_explicit(&group->loaded, memory_order_acquire)) return 0;
    if (error) *error = group->error;
    return -1;
}

int CSharedLibraries_is_loaded(CSharedLibraries_Library library) {
    return atomic_load_explicit(&groups[library].loaded, memory_order_acquire);
}

/// Prints `message` and ends the process: a library cardrender needs for this work is
/// missing or broken, and the caller cannot go on without it.
static _Noreturn void stop(const char *message) {
    fprintf(stderr, "cardrender: %s\n", message);
    fflush(stderr);
    _exit(70);
}

void *CSharedLibraries_symbol(CSharedLibraries_Library library, const char *name) {
    const char *error = NULL;
    if (CSharedLibraries_load(library, &error) != 0) stop(error);
    Group *group = &groups[library];
    for (int index = 0; index < max_files && group->handles[index]; index++) {
        void *address = dlsym(group->handles[index], name);
        if (address) return address;
    }
    char message[256];
    snprintf(message, sizeof message, "%s has no function %s (wrong version installed?)", group->name, name);
    stop(message);
}
