# Install rules for the three Debian packages (components):
#   agent -> smclab-agent  the daemon, its systemd unit and default config
#   cli   -> smclab        the CLI, the GUI when built, .desktop entry, icon
#   dev   -> libsmcr-dev   engine headers, static libraries, smcr.pc, smcrConfig.cmake
# Included once from the top-level CMakeLists.txt after every module, so the
# targets exist; each is guarded so a partial build still configures.
include(CMakePackageConfigHelpers)

set(_smclab_pkg_dir ${CMAKE_CURRENT_LIST_DIR})

# --- smclab-agent ----------------------------------------------------------
if(TARGET smclab-agent)
    install(TARGETS smclab-agent RUNTIME DESTINATION bin COMPONENT agent)
    install(FILES ${_smclab_pkg_dir}/systemd/smclab-agent.service
            DESTINATION lib/systemd/system COMPONENT agent)
    # Absolute: configuration belongs in /etc whatever the prefix (conffile).
    install(FILES ${_smclab_pkg_dir}/agent.conf DESTINATION /etc/smclab COMPONENT agent)
endif()

# --- smclab (CLI + GUI) ----------------------------------------------------
if(TARGET smclab)
    install(TARGETS smclab RUNTIME DESTINATION bin COMPONENT cli)
endif()
# smcr_run and the library it preloads; smcr_run looks for it in ../lib/smclab.
if(TARGET smcr_run)
    install(TARGETS smcr_run RUNTIME DESTINATION bin COMPONENT cli)
endif()
if(TARGET smcr_preload)
    install(TARGETS smcr_preload LIBRARY DESTINATION lib/smclab COMPONENT cli)
endif()
# ksmc_run (the kernel's SMC for unmodified programs) and its library, in ../lib/smclab.
if(TARGET ksmc_run)
    install(TARGETS ksmc_run RUNTIME DESTINATION bin COMPONENT cli)
    install(TARGETS smclab_ksmc_preload LIBRARY DESTINATION lib/smclab COMPONENT cli)
endif()
if(TARGET smclab-gui)
    install(TARGETS smclab-gui RUNTIME DESTINATION bin COMPONENT cli)
    install(FILES ${_smclab_pkg_dir}/desktop/smclab.desktop
            DESTINATION share/applications COMPONENT cli)
endif()
install(FILES ${_smclab_pkg_dir}/desktop/smclab.svg
        DESTINATION share/icons/hicolor/scalable/apps COMPONENT cli)

# --- libsmcr-dev -----------------------------------------------------------
# Static libraries in link order (each before the ones it uses).
set(_smcr_libs smcr_api smcr_core smcr_fabric smcr_wire smcr_common)
set(_smcr_installed_libs "")
foreach(_lib ${_smcr_libs})
    if(TARGET ${_lib})
        install(TARGETS ${_lib} ARCHIVE DESTINATION lib COMPONENT dev)
        list(APPEND _smcr_installed_libs ${_lib})
    endif()
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/engine/include/smcr
        DESTINATION include COMPONENT dev FILES_MATCHING PATTERN "*.h")

# The verbs backend is compiled in when libibverbs was found; then users of
# the static libraries link it too.
set(SMCR_USES_IBVERBS OFF)
if(TARGET smcr_fabric)
    get_target_property(_smcr_fabric_defs smcr_fabric INTERFACE_COMPILE_DEFINITIONS)
    if(_smcr_fabric_defs AND "SMCLAB_HAVE_VERBS=1" IN_LIST _smcr_fabric_defs)
        set(SMCR_USES_IBVERBS ON)
    endif()
endif()

set(SMCR_PC_LIBS "")
foreach(_lib ${_smcr_installed_libs})
    string(APPEND SMCR_PC_LIBS " -l${_lib}")
endforeach()
set(SMCR_PC_REQUIRES_LIBS "-pthread")
if(SMCR_USES_IBVERBS)
    string(APPEND SMCR_PC_REQUIRES_LIBS " -libverbs")
endif()
set(SMCR_LIB_NAMES "${_smcr_installed_libs}")
set(SMCR_VERSION ${PROJECT_VERSION})

configure_file(${_smclab_pkg_dir}/cmake/smcr.pc.in ${CMAKE_BINARY_DIR}/packaging/smcr.pc @ONLY)
configure_file(${_smclab_pkg_dir}/cmake/smcrConfig.cmake.in
               ${CMAKE_BINARY_DIR}/packaging/smcrConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/packaging/smcrConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/packaging/smcr.pc DESTINATION lib/pkgconfig COMPONENT dev)
install(FILES ${CMAKE_BINARY_DIR}/packaging/smcrConfig.cmake
              ${CMAKE_BINARY_DIR}/packaging/smcrConfigVersion.cmake
        DESTINATION lib/cmake/smcr COMPONENT dev)

include(${_smclab_pkg_dir}/cpack_linux.cmake)
