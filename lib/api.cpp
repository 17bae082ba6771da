// api.cpp — the public classes of quasi.hpp, implemented through engine_bridge.hpp.
#include "engine_bridge.hpp"
#include "quasi/quasi.hpp"

namespace quasi {

namespace {
constexpr uint64_t kUnspecifiedWord = 0x1E;  // value.hpp: kUnspecified
constexpr uint64_t kFalseWord = 0x06;        // value.hpp: kFalse
}  // namespace

struct EngineState {
  bridge::Engine* engine;
};

const char* version() { return "0.1.0"; }

Value::Value() : slot_(bridge::new_root(kUnspecifiedWord)) {}
Value::Value(uint64_t raw) : slot_(bridge::new_root(raw)) {}
Value::~Value() { bridge::free_root(slot_); }
Value::Value(const Value& other) : slot_(bridge::new_root(*other.slot_)) {}
Value& Value::operator=(const Value& other) {
  *slot_ = *other.slot_;
  return *this;
}
uint64_t Value::raw() const { return *slot_; }
std::string Value::to_string() const { return bridge::write(*slot_, false); }
std::string Value::to_display_string() const { return bridge::write(*slot_, true); }
bool Value::is_unspecified() const { return bridge::is_unspecified(*slot_); }
bool Value::is_number() const { return bridge::is_number(*slot_); }
bool Value::is_string() const { return bridge::is_string(*slot_); }
bool Value::is_procedure() const { return bridge::is_procedure(*slot_); }
bool Value::is_true() const { return *slot_ != kFalseWord; }
int64_t Value::as_int() const { return bridge::as_int(*slot_); }
double Value::as_double() const { return bridge::as_double(*slot_); }
std::string Value::as_string() const { return bridge::as_string(*slot_); }

Error::Error(const std::string& full_text, std::string message, std::string location,
             std::vector<std::string> backtrace)
    : std::runtime_error(full_text),
      message_(std::move(message)),
      location_(std::move(location)),
      backtrace_(std::move(backtrace)) {}

Engine::Engine() : state_(new EngineState{bridge::create_engine()}) {}
Engine::~Engine() { bridge::destroy_engine(state_->engine); }

Value Engine::eval(std::string_view code, std::string_view source_name) {
  return Value(bridge::eval(state_->engine, code, source_name));
}
Value Engine::load(const std::string& path) { return Value(bridge::load(state_->engine, path)); }
bool Engine::input_incomplete(std::string_view code) const { return bridge::input_incomplete(code); }
void Engine::set_command_line(const std::vector<std::string>& args) { bridge::set_command_line(state_->engine, args); }
void Engine::interrupt() { bridge::interrupt(state_->engine); }

}  // namespace quasi
