# Warnings and sanitizers for every target of the project, set once here.
add_library(smclab_build_flags INTERFACE)
add_library(smclab::build_flags ALIAS smclab_build_flags)

target_compile_options(smclab_build_flags INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Wunused -Woverloaded-virtual
    -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough
    $<$<CXX_COMPILER_ID:GNU>:-Wduplicated-cond -Wlogical-op>
    # -Wnull-dereference is left out: at -O3 GCC 12 reports paths its own
    # inlining invented (QPointer, std::function), and Debug builds never see them.
    # GCC 12 at -O2/-O3 reports impossible overlaps inside libstdc++'s own
    # std::string code (GCC bug 105329); the warning says nothing about ours.
    $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>
    # Its -O3 "maybe uninitialized" on engaged std::optional values copied
    # into Qt containers is a known false positive: kept visible, not fatal.
    $<$<CXX_COMPILER_ID:GNU>:-Wno-error=maybe-uninitialized>)

if(SMCLAB_WERROR)
    target_compile_options(smclab_build_flags INTERFACE -Werror)
endif()

if(SMCLAB_SANITIZE STREQUAL "address")
    set(_smclab_san -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
elseif(SMCLAB_SANITIZE STREQUAL "thread")
    set(_smclab_san -fsanitize=thread -fno-omit-frame-pointer)
elseif(NOT SMCLAB_SANITIZE STREQUAL "")
    message(FATAL_ERROR "SMCLAB_SANITIZE must be empty, 'address' or 'thread'")
endif()
if(_smclab_san)
    # Applied globally so that static libraries and tests agree on the runtime.
    add_compile_options(${_smclab_san})
    add_link_options(${_smclab_san})
endif()
