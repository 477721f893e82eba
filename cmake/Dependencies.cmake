# Third-party packages, all from Debian 12 (scripts/install-deps.sh installs them).
find_package(nlohmann_json 3.10 REQUIRED)
find_package(spdlog REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
# The run ledger (analysis/RunLedger): SQLite::SQLite3 and ZLIB::ZLIB.
find_package(SQLite3 REQUIRED)
find_package(ZLIB REQUIRED)
# Debian's interpreter (PTO_PYTHON_EXECUTABLE), for embedding and for the
# importable `pypto` package.
set(Python_EXECUTABLE "${PTO_PYTHON_EXECUTABLE}" CACHE FILEPATH "" FORCE)
find_package(Python 3.9 REQUIRED COMPONENTS Interpreter Development.Module Development.Embed)
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 2.10 REQUIRED CONFIG)
if(PTO_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
