# The layers of Kiln, enforced by the build. Every target that compiles part of src/ sees only the
# headers of the layers it may use: kiln_expose() gives a target an include folder of its own
# (layers/<target> in the build tree) holding links to the headers of the folders it names, and
# targets that link it see them too. An include of a header from a layer the target does not
# link finds no file, and the build fails.
#
#   kiln_expose(<target> FOLDERS <folders of src/> [EXCLUDE <subfolders>] [FILES <files of src/>])
#
# FOLDERS are taken with their subfolders, except those under EXCLUDE (a device's code
# generator, which lives in the other library); FILES are single headers (what a device's driver
# and its code generator share).
function(kiln_expose target)
  cmake_parse_arguments(ARG "" "" "FOLDERS;EXCLUDE;FILES" ${ARGN})
  set(source_root ${PROJECT_SOURCE_DIR}/src)
  set(view ${CMAKE_BINARY_DIR}/layers/${target})
  set(headers ${ARG_FILES})
  # Made afresh at each configure, so a header moved or removed is gone from the view too.
  file(REMOVE_RECURSE ${view})
  foreach(folder ${ARG_FOLDERS})
    file(GLOB_RECURSE found CONFIGURE_DEPENDS RELATIVE ${source_root}
         ${source_root}/${folder}/*.hpp ${source_root}/${folder}/*.h ${source_root}/${folder}/*.def)
    foreach(excluded ${ARG_EXCLUDE})
      list(FILTER found EXCLUDE REGEX "^${excluded}/")
    endforeach()
    list(APPEND headers ${found})
  endforeach()
  foreach(header ${headers})
    get_filename_component(parent ${view}/${header} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${source_root}/${header} ${view}/${header} SYMBOLIC)
  endforeach()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE ${view})
  else()
    target_include_directories(${target} PUBLIC ${view})
  endif()
endfunction()
