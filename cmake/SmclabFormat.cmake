# format-check: fails when any C++ file differs from .clang-format
# (scripts/format.sh check); format: rewrites them (scripts/format.sh fix).
add_custom_target(format-check
    COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/format.sh check
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    COMMENT "Checking formatting against .clang-format")
add_custom_target(format
    COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/format.sh fix
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    COMMENT "Formatting sources")
