# Compiles through ccache where it is installed (packaging/install-deps.sh
# installs it): a rebuild of an unchanged file, in this tree or in another
# clone of it, costs a cache look-up instead of a compile. CCACHE_BASEDIR
# makes the project's absolute paths relative, so two clones share entries.
option(SMCLAB_CCACHE "Compile through ccache when it is found" ON)
if(SMCLAB_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
    find_program(SMCLAB_CCACHE_PROGRAM ccache)
    if(SMCLAB_CCACHE_PROGRAM)
        set(_smclab_launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${CMAKE_SOURCE_DIR} ${SMCLAB_CCACHE_PROGRAM})
        set(CMAKE_C_COMPILER_LAUNCHER ${_smclab_launcher})
        set(CMAKE_CXX_COMPILER_LAUNCHER ${_smclab_launcher})
    endif()
endif()
