// OpenCV's cascade classifier, called by name; see FaceDetectorPlugin.h.
#include "FaceDetectorPlugin.h"

#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include <opencv2/objdetect.hpp>

static_assert(std::is_same_v<decltype(&FaceDetectorPlugin_detect), CFaceDetector_PluginDetect>,
              "the plugin's function is the type CFaceDetector opens it as");

namespace {

std::mutex detecting;

/// The cascades read so far, by file (kept for the life of the process: a handful at most).
std::map<std::string, std::unique_ptr<cv::CascadeClassifier>> classifiers;

} // namespace

extern "C" __attribute__((visibility("default"))) int
FaceDetectorPlugin_detect(const char *cascade, const unsigned char *grey, int width, int height, int stride,
                          double step, int neighbours, int minimum, CFaceDetector_Face *faces, int capacity,
                          char *error, int errorCapacity) {
    try {
        // OpenCV's classifier is not safe to share between threads: one detection at a time.
        std::lock_guard<std::mutex> lock(detecting);
        auto found = classifiers.find(cascade);
        if (found == classifiers.end()) {
            auto classifier = std::make_unique<cv::CascadeClassifier>();
            if (!classifier->load(cascade)) {
                std::snprintf(error, size_t(errorCapacity), "OpenCV could not read the cascade %s", cascade);
                return -1;
            }
            found = classifiers.emplace(cascade, std::move(classifier)).first;
        }
        // A matrix over the caller's pixels (not copied, not written).
        cv::Mat image(height, width, CV_8UC1, const_cast<unsigned char *>(grey), size_t(stride));
        std::vector<cv::Rect> objects;
        found->second->detectMultiScale(image, objects, step, neighbours, 0, cv::Size(minimum, minimum), cv::Size());
        for (size_t index = 0; index < objects.size() && int(index) < capacity; index++) {
            faces[index] = {objects[index].x, objects[index].y, objects[index].width, objects[index].height};
        }
        return int(objects.size());
    } catch (const std::exception &exception) {
        std::snprintf(error, size_t(errorCapacity), "OpenCV failed: %s", exception.what());
    } catch (...) {
        std::snprintf(error, size_t(errorCapacity), "OpenCV failed");
    }
    return -1;
}
