// Pango, cairo and fontconfig as one system module, headers only (include directories from
// Package.swift; apt `libpango1.0-dev`): CTextLayout lays out text with them, and
// CLazyLibraries opens the libraries when they are first used.
#include <pango/pangocairo.h>
#include <fontconfig/fontconfig.h>
