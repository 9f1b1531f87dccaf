// CFaceDetector: OpenCV's cascade face detector, opened on first use.
//
// OpenCV 4 has no C API for its cascades, so this target is C++ behind a C interface. Like
// CLazyLibraries, it does not link OpenCV: a process that never places a photo by its faces
// never maps libopencv_objdetect and its dependencies (core, imgproc, dnn, TBB, ...). The
// six C++ functions it calls are looked up by their mangled names in
// `libopencv_objdetect.so.406` (which pulls in libopencv_core) when first needed, and called
// through pointers of their declared types on storage laid out by OpenCV's own headers
// (`sizeof(cv::Mat)`, `sizeof(cv::CascadeClassifier)`); a library without one of them is
// refused with a message naming it, never called.
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

/// Opens OpenCV's object detection once per process (later calls return at once, from any
/// thread). Returns 0, or -1 with `*error` set to a message naming the library or function
/// and the cause (valid for the life of the process).
int CFaceDetector_load(const char **error);

/// Finds faces in `grey` (8-bit, `width` x `height`, rows `stride` bytes apart) with the
/// cascade in the XML file `cascade` (read once per process and kept), trying windows from
/// `minimum` pixels up, each scale `step` (> 1) times the last, and keeping a face found by at
/// least `neighbours` overlapping windows. Writes at most `capacity` faces, and returns how many
/// were found (which may be more than were written), or -1 with `*error` set (the cascade
/// could not be read, OpenCV threw, or `CFaceDetector_load` failed; valid until this thread's
/// next call). Safe from any thread: one
/// detection runs at a time per process (OpenCV's classifier is not safe to share).
int CFaceDetector_detect(const char *cascade, const unsigned char *grey, int width, int height, int stride, double step,
                         int neighbours, int minimum, CFaceDetector_Face *faces, int capacity, const char **error);

#ifdef __cplusplus
}
#endif

#endif
