// engine_bridge.hpp — the narrow interface between the public API (api.cpp, which sees only
// quasi.hpp) and the engine (engine.cpp, which sees only the internals). Values cross as raw
// 64-bit words; errors cross as quasi::Error / quasi::Exit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace quasi::bridge {

struct Engine;

Engine* create_engine();
void destroy_engine(Engine* e);
uint64_t eval(Engine* e, std::string_view code, std::string_view source_name);
uint64_t load(Engine* e, const std::string& path);
bool input_incomplete(std::string_view code);
void set_command_line(Engine* e, const std::vector<std::string>& args);
void interrupt(Engine* e);

// GC roots for handles.
uint64_t* new_root(uint64_t raw);
void free_root(uint64_t* slot);

std::string write(uint64_t raw, bool display);
bool is_unspecified(uint64_t raw);
bool is_number(uint64_t raw);
bool is_string(uint64_t raw);
bool is_procedure(uint64_t raw);
int64_t as_int(uint64_t raw);
double as_double(uint64_t raw);
std::string as_string(uint64_t raw);

}  // namespace quasi::bridge
