// Opens the face detector plugin on first use; see CFaceDetector.h.
#include "CFaceDetector.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CFaceDetector_PluginDetect detect;
static char loadError[2 * PATH_MAX + 256];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Thread_local char failure[512];

/// Opens the plugin from the first of the two places that has it, and looks its function up.
static void open_plugin(void) {
    char executable[PATH_MAX];
    if (!realpath("/proc/self/exe", executable)) {
        snprintf(loadError, sizeof loadError, "the face detector cannot find its plugin: /proc/self/exe unreadable");
        return;
    }
    char *slash = strrchr(executable, '/');
    if (slash) *slash = 0;
    char beside[PATH_MAX + 64];
    char installed[PATH_MAX + 64];
    snprintf(beside, sizeof beside, "%s/" CFACEDETECTOR_PLUGIN, executable);
    snprintf(installed, sizeof installed, "%s/../lib/cardrender/" CFACEDETECTOR_PLUGIN, executable);
    const char *candidates[] = {beside, installed};
    for (size_t index = 0; index < 2; index++) {
        void *handle = dlopen(candidates[index], RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char *reason = dlerror();
            // A file that is there but cannot be opened (OpenCV missing) is the answer.
            FILE *file = fopen(candidates[index], "rb");
            if (!file) continue;
            fclose(file);
            snprintf(loadError, sizeof loadError,
                     "the face detector %s could not be opened: %s (Debian package libopencv-objdetect406)",
                     candidates[index], reason ? reason : "unknown reason");
            return;
        }
        detect = (CFaceDetector_PluginDetect)dlsym(handle, "FaceDetectorPlugin_detect");
        if (!detect) {
            snprintf(loadError, sizeof loadError, "%s has no function FaceDetectorPlugin_detect", candidates[index]);
        }
        return;
    }
    snprintf(loadError, sizeof loadError,
             "the face detector plugin is in neither %s nor %s (`swift build` builds it; an install has it in "
             "lib/cardrender)",
             beside, installed);
}

int CFaceDetector_load(const char **error) {
    pthread_once(&once, open_plugin);
    if (detect) return 0;
    *error = loadError;
    return -1;
}

int CFaceDetector_detect(const char *cascade, const unsigned char *grey, int width, int height, int stride, double step,
                         int neighbours, int minimum, CFaceDetector_Face *faces, int capacity, const char **error) {
    if (CFaceDetector_load(error) != 0) return -1;
    int found = detect(cascade, grey, width, height, stride, step, neighbours, minimum, faces, capacity, failure,
                       (int)sizeof failure);
    if (found < 0) *error = failure;
    return found;
}
