// FaceDetectorPlugin: OpenCV's cascade classifier behind one C function, built as its own
// shared library (libFaceDetectorPlugin.so) that links OpenCV. Nothing links this target: the
// binary opens the library on first use (Sources/Native/CFaceDetector, whose header declares
// the function's type and the face struct).
#ifndef FACEDETECTORPLUGIN_H
#define FACEDETECTORPLUGIN_H

#include "CFaceDetector.h"

#ifdef __cplusplus
extern "C" {
#endif

/// `CFaceDetector_detect`'s work: see CFaceDetector.h. Returns the faces found, or -1 with
/// the cause written to `error`.
int FaceDetectorPlugin_detect(const char *cascade, const unsigned char *grey, int width, int height, int stride,
                              double step, int neighbours, int minimum, CFaceDetector_Face *faces, int capacity,
                              char *error, int errorCapacity);

#ifdef __cplusplus
}
#endif

#endif
