// OpenCV's cascade classifier through dlopen; see CFaceDetector.h.
#include "CFaceDetector.h"

#include <dlfcn.h>

#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

// OpenCV's headers give the types' layouts and the inline parts (cv::_InputArray over a Mat,
// cv::Rect, cv::Size); nothing they declare out of line is referenced by name, so nothing of
// OpenCV's is linked.
#include <opencv2/objdetect.hpp>

namespace {

/// The library opened, and the functions called in it (Itanium C++ ABI names, OpenCV 4.x).
struct OpenCV {
    void (*matrix)(void *self, int rows, int columns, int type, void *data, size_t step) = nullptr;
    void (*matrixGone)(void *self) = nullptr;
    void (*classifier)(void *self) = nullptr;
    void (*classifierGone)(void *self) = nullptr;
    bool (*load)(void *self, const std::string &file) = nullptr;
    void (*detect)(void *self, const cv::_InputArray &image, std::vector<cv::Rect> &objects, double step,
                   int neighbours, int flags, cv::Size minimum, cv::Size maximum) = nullptr;
    char error[512] = "";
};

constexpr const char *libraryFile = "libopencv_objdetect.so.406";

OpenCV &opencv() {
    static OpenCV library;
    return library;
}

/// Looks `name` up in `handle` into `*pointer`; false (with the error written) if missing.
template <typename Function> bool resolve(void *handle, const char *name, Function *pointer) {
    void *address = dlsym(handle, name);
    if (!address) {
        std::snprintf(opencv().error, sizeof opencv().error,
                      "OpenCV (%s) has no function %s: another version of it is installed than cardrender "
                      "was built for",
                      libraryFile, name);
        return false;
    }
    *pointer = reinterpret_cast<Function>(address);
    return true;
}

void open() {
    OpenCV &library = opencv();
    void *handle = dlopen(libraryFile, RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        std::snprintf(library.error, sizeof library.error,
                      "OpenCV could not be loaded: %s (Debian package libopencv-objdetect406)",
                      reason ? reason : libraryFile);
        return;
    }
    OpenCV found;
    bool complete =
        resolve(handle, "_ZN2cv3MatC1EiiiPvm", &found.matrix) && resolve(handle, "_ZN2cv3MatD1Ev", &found.matrixGone) &&
        resolve(handle, "_ZN2cv17CascadeClassifierC1Ev", &found.classifier) &&
        resolve(handle, "_ZN2cv17CascadeClassifierD1Ev", &found.classifierGone) &&
        resolve(handle, "_ZN2cv17CascadeClassifier4loadERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
                &found.load) &&
        resolve(handle,
                "_ZN2cv17CascadeClassifier16detectMultiScaleERKNS_11_InputArrayERSt6vectorINS_5Rect_"
                "IiEESaIS6_EEdiiNS_5Size_IiEESB_",
                &found.detect);
    if (!complete) return;
    library.matrix = found.matrix;
    library.matrixGone = found.matrixGone;
    library.classifier = found.classifier;
    library.classifierGone = found.classifierGone;
    library.load = found.load;
    library.detect = found.detect;
}

/// A cv::CascadeClassifier made and destroyed by OpenCV's own constructor and destructor in
/// storage of its size.
struct Classifier {
    alignas(cv::CascadeClassifier) unsigned char storage[sizeof(cv::CascadeClassifier)];
    Classifier() { opencv().classifier(storage); }
    ~Classifier() { opencv().classifierGone(storage); }
    Classifier(const Classifier &) = delete;
    Classifier &operator=(const Classifier &) = delete;
};

/// A cv::Mat over pixels it does not own, likewise.
struct Matrix {
    alignas(cv::Mat) unsigned char storage[sizeof(cv::Mat)];
    Matrix(const unsigned char *grey, int width, int height, int stride) {
        opencv().matrix(storage, height, width, CV_8UC1, const_cast<unsigned char *>(grey), size_t(stride));
    }
    ~Matrix() { opencv().matrixGone(storage); }
    Matrix(const Matrix &) = delete;
    Matrix &operator=(const Matrix &) = delete;
    const cv::Mat &mat() const { return *reinterpret_cast<const cv::Mat *>(storage); }
};

std::mutex detecting;
/// The cascades read so far, by file (kept for the life of the process: a handful at most).
std::map<std::string, std::unique_ptr<Classifier>> &classifiers() {
    static std::map<std::string, std::unique_ptr<Classifier>> read;
    return read;
}
/// The last failure's message, per thread.
thread_local char failure[512];

} // namespace

extern "C" int CFaceDetector_load(const char **error) {
    static std::once_flag once;
    std::call_once(once, open);
    if (opencv().detect) return 0;
    *error = opencv().error;
    return -1;
}

extern "C" int CFaceDetector_detect(const char *cascade, const unsigned char *grey, int width, int height, int stride,
                                    double step, int neighbours, int minimum, CFaceDetector_Face *faces, int capacity,
                                    const char **error) {
    if (CFaceDetector_load(error) != 0) return -1;
    try {
        std::lock_guard<std::mutex> lock(detecting);
        auto &read = classifiers();
        auto found = read.find(cascade);
        if (found == read.end()) {
            auto classifier = std::make_unique<Classifier>();
            if (!opencv().load(classifier->storage, std::string(cascade))) {
                std::snprintf(failure, sizeof failure, "OpenCV could not read the cascade %s", cascade);
                *error = failure;
                return -1;
            }
            found = read.emplace(cascade, std::move(classifier)).first;
        }
        Matrix image(grey, width, height, stride);
        std::vector<cv::Rect> objects;
        opencv().detect(found->second->storage, cv::_InputArray(image.mat()), objects, step, neighbours, 0,
                        cv::Size(minimum, minimum), cv::Size());
        for (size_t index = 0; index < objects.size() && int(index) < capacity; index++) {
            faces[index] = {objects[index].x, objects[index].y, objects[index].width, objects[index].height};
        }
        return int(objects.size());
    } catch (const std::exception &exception) {
        std::snprintf(failure, sizeof failure, "OpenCV failed: %s", exception.what());
    } catch (...) {
        std::snprintf(failure, sizeof failure, "OpenCV failed");
    }
    *error = failure;
    return -1;
}
