# SPDX-License-Identifier: GPL-3.0-or-later
# Project-wide strictness: strict strings and warnings (ARCHITECTURE.md, "Habits").
add_compile_definitions(
  QT_NO_CAST_FROM_ASCII QT_NO_CAST_TO_ASCII QT_NO_CAST_FROM_BYTEARRAY
  QT_USE_QSTRINGBUILDER QT_NO_URL_CAST_FROM_STRING QT_NO_NARROWING_CONVERSIONS_IN_CONNECT)

# headroom_strict(target): -Wall -Wextra -Wpedantic, and -Werror when HEADROOM_WERROR is ON.
function(headroom_strict target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(HEADROOM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
