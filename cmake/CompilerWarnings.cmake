# Warnings and sanitizer flags shared by every PTO Studio target.
add_library(pto_options INTERFACE)
target_compile_options(pto_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
if(PTO_SANITIZE)
  # UB aborts instead of printing and going on (a test fails, libFuzzer keeps
  # the input); _GLIBCXX_ASSERTIONS turns an out-of-range operator[] on a
  # standard container into an abort as well.
  # PTO_UNDER_SANITIZERS lets a test skip what means nothing instrumented (a
  # time budget, a scale test, a plain interpreter loading the module).
  target_compile_options(pto_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                         -fno-sanitize-recover=undefined -D_GLIBCXX_ASSERTIONS -DPTO_UNDER_SANITIZERS=1)
  target_link_options(pto_options INTERFACE -fsanitize=address,undefined)
endif()

# The sanitizer build compiles at -O0, which halves its build time; the core
# types, the compiler, the simulator, the runtime and the trace model, whose
# loops most tests (and the fuzzers) spend their time in, stay at -O1 so that
# the suite under the sanitizers does not take several times longer to run.
function(pto_optimize_under_sanitizers target)
  if(PTO_SANITIZE)
    target_compile_options(${target} PRIVATE -O1)
  endif()
endfunction()
