# Fails when LIBRARY lists libcuda among its needed libraries.
execute_process(COMMAND ${READELF} -d ${LIBRARY} OUTPUT_VARIABLE dynamic
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf -d ${LIBRARY} failed (${rc})")
endif()
if(dynamic MATCHES "libcuda")
  message(FATAL_ERROR "${LIBRARY} links libcuda:\n${dynamic}")
endif()
message(STATUS "${LIBRARY}: no libcuda dependency")
