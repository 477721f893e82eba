# Warnings and sanitizer flags shared by every PTO Studio target.
add_library(pto_options INTERFACE)
target_compile_options(pto_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
if(PTO_SANITIZE)
  target_compile_options(pto_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(pto_options INTERFACE -fsanitize=address,undefined)
endif()

# The sanitizer build compiles at -O0, which halves its build time; the
# compiler, the simulator and the runtime, whose loops most tests spend their
# time in, stay at -O1 so that the suite under the sanitizers does not take
# several times longer to run.
function(pto_optimize_under_sanitizers target)
  if(PTO_SANITIZE)
    target_compile_options(${target} PRIVATE -O1)
  endif()
endfunction()
