# Installing the whole suite (docs/install.md).  `cmake --install BUILD
# [--prefix P]` puts under the prefix what the runner finds in a build tree:
#
#   bin/datcts                         the runner (a wrapper around Debian's python3)
#   <pydir>/datcts, <pydir>/datcts_reports   its Python packages
#   libexec/datcts/cases/              the case binaries (and any other build-tree
#   libexec/datcts/bench/              folder of case binaries, e.g. a DAT 2.0 build's),
#   libexec/datcts/bin/                datcts-probe: the build
#                                      tree's layout, so this is the installed
#                                      datcts's default --build-dir
#   share/datcts/clauses/              the clause catalog
#   share/datcts/templates/            the HTML report's templates
#   share/datcts/ref-provider/dat.conf the reference provider's dat.conf entries
#                                      (dat2.conf: the DAT 2.0 build's), for /etc/dat.conf
#   share/doc/datcts/                  README.md and docs/*.md
#   share/man/man1/                    datcts(1), dat-providers(1)
#
# libdat/ and reference-provider/ install the headers, libdat, dat-providers,
# libdaplref, libdaplref2 (the DAT 2.0 build, when there is one) and dat.pc
# themselves.
#
# <pydir> is where Debian's python3 looks for modules under the prefix, chosen
# at install time so `--prefix` gets it right: lib/python3/dist-packages
# under /usr, lib/python3.X/dist-packages elsewhere (/usr/local's is on
# python3's path; bin/datcts puts any other on PYTHONPATH).
# DATCTS_INSTALL_PYTHONDIR (relative to the prefix) overrides.
include_guard(GLOBAL)

set(DATCTS_INSTALL_PYTHONDIR "" CACHE STRING
    "Python packages' directory relative to the install prefix (empty: Debian python3's for the prefix)")
option(DATCTS_INSTALL_RPATH "Give installed programs an $ORIGIN-relative RPATH when the library directory is not a system one" ON)

set(DATCTS_INSTALL_SUITEDIR "${CMAKE_INSTALL_LIBEXECDIR}/datcts")
set(DATCTS_INSTALL_SHAREDIR "${CMAKE_INSTALL_DATADIR}/datcts")
set(_dci_gen "${CMAKE_BINARY_DIR}/datcts-install")
foreach(_d SUITEDIR SHAREDIR)
  if(IS_ABSOLUTE "${DATCTS_INSTALL_${_d}}")
    message(FATAL_ERROR "datcts install: ${_d} must be relative to the prefix (${DATCTS_INSTALL_${_d}})")
  endif()
endforeach()

# Debian's python3 version, for lib/python3.X/dist-packages.
find_program(DATCTS_INSTALL_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
set(_dci_pyver "3.11")
if(DATCTS_INSTALL_PYTHON3)
  execute_process(COMMAND ${DATCTS_INSTALL_PYTHON3} -c "import sys; print('%d.%d' % sys.version_info[:2])"
                  OUTPUT_VARIABLE _dci_out OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _dci_rc)
  if(_dci_rc EQUAL 0 AND _dci_out MATCHES "^3\\.[0-9]+$")
    set(_dci_pyver "${_dci_out}")
  endif()
endif()

# The reference providers' libraries: build-tree file name|linker name|SONAME
# file, for the dat.conf entries written at install time.
set(_dci_sonames "")
foreach(_t daplref daplref2)
  if(TARGET ${_t})
    list(APPEND _dci_sonames "$<TARGET_FILE_NAME:${_t}>|$<TARGET_LINKER_FILE_NAME:${_t}>|$<TARGET_SONAME_FILE_NAME:${_t}>")
  endif()
endforeach()

# ---- install time: the Python directory and the files that name the layout
install(CODE "
set(DATCTS_PYDIR \"${DATCTS_INSTALL_PYTHONDIR}\")
if(NOT DATCTS_PYDIR)
  if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
    set(DATCTS_PYDIR lib/python3/dist-packages)
  else()
    set(DATCTS_PYDIR lib/python${_dci_pyver}/dist-packages)
  endif()
endif()
set(DATCTS_SUITEDIR \"${DATCTS_INSTALL_SUITEDIR}\")
set(DATCTS_SHAREDIR \"${DATCTS_INSTALL_SHAREDIR}\")
set(DATCTS_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
set(DATCTS_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
set(DATCTS_GEN \"${_dci_gen}\")
set(DATCTS_LIBOUT \"${CMAKE_LIBRARY_OUTPUT_DIRECTORY}\")
set(DATCTS_BUILD \"${CMAKE_BINARY_DIR}\")
set(DATCTS_SONAMES \"${_dci_sonames}\")
include(\"${CMAKE_CURRENT_LIST_DIR}/install-layout.cmake\")
")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/runners/datcts ${PROJECT_SOURCE_DIR}/reports/datcts_reports
        DESTINATION "\${DATCTS_PYDIR}"
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE PATTERN "templates" EXCLUDE)
install(FILES ${_dci_gen}/_installed.py ${PROJECT_SOURCE_DIR}/runners/datcts/durations.json
        DESTINATION "\${DATCTS_PYDIR}/datcts")
install(FILES ${_dci_gen}/_installed.py DESTINATION "\${DATCTS_PYDIR}/datcts_reports")
install(PROGRAMS ${_dci_gen}/datcts DESTINATION ${CMAKE_INSTALL_BINDIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/clauses/ DESTINATION ${DATCTS_INSTALL_SHAREDIR}/clauses
        FILES_MATCHING PATTERN "*.toml")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/reports/datcts_reports/templates/
        DESTINATION ${DATCTS_INSTALL_SHAREDIR}/templates)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/docs/examples/datcts-slurm.sbatch
        DESTINATION ${DATCTS_INSTALL_SHAREDIR}/examples)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "man" EXCLUDE PATTERN "examples" EXCLUDE)
file(GLOB _dci_man1 ${PROJECT_SOURCE_DIR}/docs/man/*.1)
install(FILES ${_dci_man1} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# ---- the suite's programs: the build tree's layout under libexec/datcts
# Every executable of the project (tests/ excepted) that lands in a top-level
# folder of the build tree and is a case binary (datcts*-cases-*), the probe
# or the mutant table tool, into the same folder under libexec/datcts.
function(_datcts_collect_targets dir out)
  get_property(_t DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(_subs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(_s IN LISTS _subs)
    _datcts_collect_targets(${_s} _more)
    list(APPEND _t ${_more})
  endforeach()
  set(${out} ${_t} PARENT_SCOPE)
endfunction()

set(_dci_rpath_wanted FALSE)
if(DATCTS_INSTALL_RPATH AND NOT IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  list(FIND CMAKE_C_IMPLICIT_LINK_DIRECTORIES "${CMAKE_INSTALL_FULL_LIBDIR}" _dci_sys)
  if(_dci_sys EQUAL -1)
    set(_dci_rpath_wanted TRUE)
  endif()
endif()
# $ORIGIN-relative, so the tree works under any --prefix.
function(_datcts_rpath target destdir)
  if(_dci_rpath_wanted)
    file(RELATIVE_PATH _rel /p/${destdir} /p/${CMAKE_INSTALL_LIBDIR})
    if(_rel STREQUAL "")
      set_property(TARGET ${target} PROPERTY INSTALL_RPATH "\$ORIGIN")
    else()
      set_property(TARGET ${target} PROPERTY INSTALL_RPATH "\$ORIGIN/${_rel}")
    endif()
  endif()
endfunction()

_datcts_collect_targets(${PROJECT_SOURCE_DIR} _dci_targets)
set(DATCTS_INSTALLED_PROGRAMS "")
foreach(_t IN LISTS _dci_targets)
  get_target_property(_type ${_t} TYPE)
  get_target_property(_srcdir ${_t} SOURCE_DIR)
  if(NOT _type STREQUAL "EXECUTABLE" OR _srcdir MATCHES "^${PROJECT_SOURCE_DIR}/tests(/|$)")
    continue()
  endif()
  get_target_property(_name ${_t} OUTPUT_NAME)
  if(NOT _name)
    set(_name ${_t})
  endif()
  if(NOT _name MATCHES "^(datcts[^/]*-cases-.+|datcts-probe.*)$")
    continue()
  endif()
  get_target_property(_outdir ${_t} RUNTIME_OUTPUT_DIRECTORY)
  if(NOT _outdir)
    set(_outdir ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
  endif()
  file(RELATIVE_PATH _rel ${CMAKE_BINARY_DIR} ${_outdir})
  if(_rel STREQUAL "" OR _rel MATCHES "/" OR _rel MATCHES "^\\.\\.")
    continue()  # only top-level folders of the build tree, as the runner sees them
  endif()
  install(TARGETS ${_t} RUNTIME DESTINATION ${DATCTS_INSTALL_SUITEDIR}/${_rel})
  _datcts_rpath(${_t} ${DATCTS_INSTALL_SUITEDIR}/${_rel})
  list(APPEND DATCTS_INSTALLED_PROGRAMS ${DATCTS_INSTALL_SUITEDIR}/${_rel}/${_name})
endforeach()
# The registry fixture's Provider beside the case binaries it serves
# (harness/registry.c looks for it there).
if(TARGET datcts-regprov)
  install(TARGETS datcts-regprov LIBRARY DESTINATION ${DATCTS_INSTALL_SUITEDIR}/cases)
  _datcts_rpath(datcts-regprov ${DATCTS_INSTALL_SUITEDIR}/cases)
endif()
if(TARGET datcts-regprov2)
  install(TARGETS datcts-regprov2 LIBRARY DESTINATION ${DATCTS_INSTALL_SUITEDIR}/cases2)
endif()
if(TARGET dat-providers)
  _datcts_rpath(dat-providers ${CMAKE_INSTALL_BINDIR})
endif()
if(TARGET daplref)   # libdat.so.1 beside it, for a loader that has no libdat
  _datcts_rpath(daplref ${CMAKE_INSTALL_LIBDIR})
endif()

# ---- after libdat's rules (CMP0082: in declaration order): dat.pc and the
# reference provider's dat.conf for the prefix given at install time.
install(CODE "include(\"${CMAKE_CURRENT_LIST_DIR}/install-fixup.cmake\")")
