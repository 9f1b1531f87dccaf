// libqpdf's C API as one module for Swift: headers only (apt `libqpdf-dev`);
// CLazyLibraries opens the library when it is first used.
#include <qpdf/qpdf-c.h>
#include <stdlib.h>
