# SPDX-License-Identifier: BSD-3-Clause
# pkg-config files that find the installed tree from where they lie (${pcfiledir}), so
# the tree can be moved (cmake --install --prefix), whatever the depth of the library
# directory: lib, lib64 or Debian's lib/x86_64-linux-gnu. An absolute CMAKE_INSTALL_LIBDIR
# or CMAKE_INSTALL_INCLUDEDIR is written as it is.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
	set(DPK_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
	set(DPK_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
	# From <prefix>/<libdir>/pkgconfig up to <prefix>, under a stand-in prefix.
	file(RELATIVE_PATH _up "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
	string(REGEX REPLACE "/$" "" _up "${_up}")
	set(DPK_PC_PREFIX "\${pcfiledir}/${_up}")
	set(DPK_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
	set(DPK_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
	set(DPK_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()

# dpk_install_pc(NAME): cmake/NAME.pc.in, configured and installed as NAME.pc.
function(dpk_install_pc name)
	configure_file(${PROJECT_SOURCE_DIR}/cmake/${name}.pc.in
		${PROJECT_BINARY_DIR}/${name}.pc @ONLY)
	install(FILES ${PROJECT_BINARY_DIR}/${name}.pc
		DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
