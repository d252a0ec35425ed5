# format-check: fails when any C++ file differs from .clang-format.
# format: rewrites them in place.
find_program(SMCLAB_CLANG_FORMAT NAMES clang-format clang-format-14)
if(SMCLAB_CLANG_FORMAT)
    file(GLOB_RECURSE _smclab_format_files CONFIGURE_DEPENDS
        ${PROJECT_SOURCE_DIR}/engine/*.h ${PROJECT_SOURCE_DIR}/engine/*.cpp
        ${PROJECT_SOURCE_DIR}/agents/*.h ${PROJECT_SOURCE_DIR}/agents/*.cpp
        ${PROJECT_SOURCE_DIR}/db/*.h ${PROJECT_SOURCE_DIR}/db/*.cpp
        ${PROJECT_SOURCE_DIR}/gui/*.h ${PROJECT_SOURCE_DIR}/gui/*.cpp
        ${PROJECT_SOURCE_DIR}/tests/*.h ${PROJECT_SOURCE_DIR}/tests/*.cpp)
    add_custom_target(format-check
        COMMAND ${SMCLAB_CLANG_FORMAT} --dry-run --Werror ${_smclab_format_files}
        WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
        COMMENT "Checking formatting against .clang-format")
    add_custom_target(format
        COMMAND ${SMCLAB_CLANG_FORMAT} -i ${_smclab_format_files}
        WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
        COMMENT "Formatting sources")
endif()
