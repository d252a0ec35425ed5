# CPack: three Debian packages from the install components in
# install_rules.cmake. `cmake --build build --target package` writes them to
# the build directory; `cpack -B DIR` elsewhere.
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "smclab")
set(CPACK_PACKAGE_VENDOR "smclab")
set(CPACK_PACKAGE_CONTACT "smclab maintainers <smclab@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES OFF)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL agent cli dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "net")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
# Maintainer scripts 0755, the other control files 0644.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# Library dependencies of the programs from dpkg-shlibdeps when it exists;
# otherwise the explicit lists below stand alone.
find_program(SMCLAB_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(SMCLAB_DPKG_SHLIBDEPS)
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
    set(_smclab_qt_depends "")
else()
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
    set(_smclab_qt_depends "libqt6core6, libqt6network6, libqt6websockets6, libqt6sql6, libqt6sql6-sqlite")
endif()

set(CPACK_DEBIAN_AGENT_PACKAGE_NAME "smclab-agent")
set(CPACK_DEBIAN_AGENT_PACKAGE_SECTION "net")
set(CPACK_COMPONENT_AGENT_DESCRIPTION
    "smclab lab daemon\n Runs SMC-R, TCP and RDMA workloads for a smclab controller over an\n authenticated WebSocket control channel; systemd unit included.")
set(CPACK_DEBIAN_AGENT_PACKAGE_DEPENDS "adduser | passwd, coreutils")
if(_smclab_qt_depends)
    string(PREPEND CPACK_DEBIAN_AGENT_PACKAGE_DEPENDS "${_smclab_qt_depends}, ")
endif()
set(CPACK_DEBIAN_AGENT_PACKAGE_CONTROL_EXTRA
    ${CMAKE_CURRENT_LIST_DIR}/debian/agent/conffiles
    ${CMAKE_CURRENT_LIST_DIR}/debian/agent/postinst
    ${CMAKE_CURRENT_LIST_DIR}/debian/agent/prerm
    ${CMAKE_CURRENT_LIST_DIR}/debian/agent/postrm)

set(CPACK_DEBIAN_CLI_PACKAGE_NAME "smclab")
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION "net")
set(CPACK_COMPONENT_CLI_DESCRIPTION
    "SMC-R performance lab: smclab command line and desktop app\n Campaigns on agent pairs, local benchmarks, the results store, reports,\n and a protocol analyser for SMC-R CLC/LLC/CDC messages.")
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "smclab-agent")
# The results store opens SQLite through a Qt plugin dpkg-shlibdeps cannot see.
set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "libqt6sql6-sqlite")
if(_smclab_qt_depends)
    string(PREPEND CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "${_smclab_qt_depends}, ")
endif()

set(CPACK_DEBIAN_DEV_PACKAGE_NAME "libsmcr-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION "libdevel")
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "libsmcr: SMC-R (RFC 7609) in user space, development files\n Headers, static libraries, pkg-config file (smcr) and CMake package\n (find_package(smcr), target smcr::smcr) to embed the engine.")
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libstdc++-12-dev | libstdc++-dev")
if(SMCR_USES_IBVERBS)
    string(APPEND CPACK_DEBIAN_DEV_PACKAGE_DEPENDS ", libibverbs-dev")
endif()

include(CPack)
