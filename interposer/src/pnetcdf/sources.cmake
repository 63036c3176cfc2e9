# PnetCDF's layer, built where its header is found (Debian's libpnetcdf-dev, built on Open
# MPI: the top CMakeLists.txt lists it in IOTWIN_INTERPOSER_LAYERS): the library is not linked,
# its calls are found at run time in the program that uses it.
list(APPEND IOTWIN_INTERPOSER_SOURCES ${CMAKE_CURRENT_LIST_DIR}/layer.c ${CMAKE_CURRENT_LIST_DIR}/hooks.c
     ${CMAKE_CURRENT_LIST_DIR}/file.c)
list(APPEND IOTWIN_INTERPOSER_INCLUDES ${PNETCDF_INCLUDE_DIRS})
