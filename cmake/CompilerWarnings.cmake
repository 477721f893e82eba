# Warnings and sanitizer flags shared by every PTO Studio target.
add_library(pto_options INTERFACE)
target_compile_options(pto_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
if(PTO_SANITIZE)
  target_compile_options(pto_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(pto_options INTERFACE -fsanitize=address,undefined)
endif()
