// CFaceDetector: OpenCV's cascade face detector, opened on first use.
//
// OpenCV 4 has no C API for its cascades, so the detector is a small C++ plugin,
// `libFaceDetectorPlugin.so` (Sources/Native/FaceDetectorPlugin), that links OpenCV and
// calls it as any C++ program does, behind one C function. This target, compiled into the
// binary, opens the plugin when a photo is first placed by its faces: a process that never
// does that never maps OpenCV and its dependencies (core, imgproc, dnn, TBB, ...). The plugin
// is looked for beside the executable (a build folder: `swift build` makes both), then in
// `../lib/cardrender/` (an install, `scripts/package.sh`).
#ifndef CFACEDETECTOR_H
#define CFACEDETECTOR_H

#ifdef __cplusplus
extern "C" {
#endif

/// A face, in pixels of the image searched.
typedef struct CFaceDetector_Face {
    int x;
    int y;
    int width;
    int height;
} CFaceDetector_Face;

/// The plugin's one function, exported as `FaceDetectorPlugin_detect`: the parameters of
/// `CFaceDetector_detect`, with the failure's message written to `error` (`errorCapacity`
/// bytes, terminated).
typedef int (*CFaceDetector_PluginDetect)(const char *cascade, const unsigned char *grey, int width, int height,
                                          int stride, double step, int neighbours, int minimum,
                                          CFaceDetector_Face *faces, int capacity, char *error, int errorCapacity);

/// The plugin's file name.
#define CFACEDETECTOR_PLUGIN "libFaceDetectorPlugin.so"

/// Opens the plugin (and so OpenCV) once per process (later calls return at once, from any
/// thread). Returns 0, or -1 with `*error` set to a message naming the file and the cause
/// (valid for the life of the process).
int CFaceDetector_load(const char **error);

/// Finds faces in `grey` (8-bit, `width` x `height`, rows `stride` bytes apart) with the
/// cascade in the XML file `cascade` (read once per process and kept), trying windows from
/// `minimum` pixels up, each scale `step` (> 1) times the last, and keeping a face found by at
/// least `neighbours` overlapping windows. Writes at most `capacity` faces, and returns how many
/// were found (which may be more than were written), or -1 with `*error` set (the cascade
/// could not be read, OpenCV threw, or `CFaceDetector_load` failed; valid until this thread's
/// next call). Safe from any thread: one detection runs at a time per process (OpenCV's
/// classifier is not safe to share).
int CFaceDetector_detect(const char *cascade, const unsigned char *grey, int width, int height, int stride, double step,
                         int neighbours, int minimum, CFaceDetector_Face *faces, int capacity, const char **error);

#ifdef __cplusplus
}
#endif

#endif
