# The GUI's third-party libraries (Debian 12: qt6-base-dev, qt6-svg-dev,
# libqscintilla2-qt6-dev, libqcustomplot-dev). Only widgets/, app/studio and
# their tests and benchmarks link them; the engine never does.
# PrintSupport: QCustomPlot links it.
find_package(Qt6 6.2 REQUIRED COMPONENTS Core Gui Widgets Concurrent Svg PrintSupport Test)

# QScintilla ships no CMake package on Debian: find its header folder and library.
find_path(QSCINTILLA_INCLUDE_DIR Qsci/qsciscintilla.h
  PATHS /usr/include/x86_64-linux-gnu/qt6 /usr/include/qt6 ${Qt6Core_INCLUDE_DIRS}
  REQUIRED)
find_library(QSCINTILLA_LIBRARY NAMES qscintilla2_qt6 REQUIRED)
if(NOT TARGET QScintilla::QScintilla)
  add_library(QScintilla::QScintilla UNKNOWN IMPORTED GLOBAL)
  set_target_properties(QScintilla::QScintilla PROPERTIES
    IMPORTED_LOCATION "${QSCINTILLA_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${QSCINTILLA_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "Qt6::Widgets")
endif()

# QCustomPlot built against Qt 6 (the plain QCustomPlot package is the Qt 5 one).
find_package(QCustomPlotQt6 REQUIRED CONFIG)
