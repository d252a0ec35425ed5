# smclab_add_test(NAME <name> SOURCES <files...> LIBS <targets...>
#                 LABELS <labels...> [TIMEOUT <seconds>] [QT] [ARGS <args...>])
#
# One executable per test file, registered with CTest under its labels.
# QT links Qt::Test (a Qt Test program); without it the program is a plain
# executable that returns non-zero on failure.
#
# Labels: every test has exactly one kind, so that `ctest -L unit`,
# `-L integration` and `-L gui` together run everything:
#   unit         one process, no programs, no sockets to other processes
#   integration  real processes (agents, peers, nginx, postgres ...) or devices
#   gui          the Qt desktop (offscreen or Xvfb)
#   sanitize     the ci preset's ASan+UBSan re-run of the other tests
# plus the module it tests, which is its folder under tests/ (added here:
# wire, fabric, engine, agents, db, orchestrator, ...) and optional topic
# labels (rnic, fuzz). smclab_check_test_labels() checks a plain add_test.
# (fuzz_wire is integration: it builds and runs the libFuzzer programs, and
# scripts/sanitize.sh selects "unit", which would build them again under ASan.)
set(SMCLAB_TEST_KINDS unit integration gui sanitize)

function(smclab_check_test_labels name labels)
    set(_kinds 0)
    foreach(kind IN LISTS SMCLAB_TEST_KINDS)
        if(kind IN_LIST labels)
            math(EXPR _kinds "${_kinds} + 1")
        endif()
    endforeach()
    if(NOT _kinds EQUAL 1)
        message(FATAL_ERROR "test ${name}: labels '${labels}' need exactly one of: ${SMCLAB_TEST_KINDS}")
    endif()
endfunction()

# The module label of the tests defined in the current folder (tests/<module>).
function(smclab_test_labels out)
    get_filename_component(_module ${CMAKE_CURRENT_SOURCE_DIR} NAME)
    set(_labels ${ARGN})
    if(NOT _module IN_LIST _labels)
        list(APPEND _labels ${_module})
    endif()
    smclab_check_test_labels("${CMAKE_CURRENT_SOURCE_DIR}" "${_labels}")
    set(${out} "${_labels}" PARENT_SCOPE)
endfunction()

function(smclab_add_test)
    cmake_parse_arguments(T "QT" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS;ARGS;ENV" ${ARGN})
    smclab_test_labels(T_LABELS ${T_LABELS})
    if(NOT T_TIMEOUT)
        set(T_TIMEOUT 120)
    endif()
    # ThreadSanitizer costs 4-5x the CPU time (test_core_datapath: 1.7 s in a
    # Debug build, 7.5 s under TSan), so a bound that fits a normal build
    # times out a correct test on a loaded machine; the bound stays a bound.
    if(SMCLAB_SANITIZE STREQUAL "thread")
        math(EXPR T_TIMEOUT "${T_TIMEOUT} * 4")
    endif()
    add_executable(${T_NAME} ${T_SOURCES})
    set_target_properties(${T_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
    target_link_libraries(${T_NAME} PRIVATE smclab::build_flags ${T_LIBS})
    if(T_QT)
        target_link_libraries(${T_NAME} PRIVATE Qt6::Test)
    endif()
    add_test(NAME ${T_NAME} COMMAND ${T_NAME} ${T_ARGS})
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT})
    # Tests that cannot run here (no RDMA device, no namespaces) exit 77 and
    # are reported as skipped, never as passed.
    set_tests_properties(${T_NAME} PROPERTIES SKIP_RETURN_CODE 77)
    set(_env "QT_QPA_PLATFORM=offscreen;SMCLAB_BIN_DIR=${CMAKE_BINARY_DIR}/bin;SMCLAB_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
    if(T_ENV)
        list(APPEND _env ${T_ENV})
    endif()
    set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT "${_env}")
endfunction()
