// plugin_host — a chat service whose behaviour comes from plugins written in Scheme.
//
// Each plugin script is loaded into an environment of its own (so the three can all define
// `name`, `on-message` and `summary`), which imports (scheme base) and the host library (plugin
// host); a plugin may import a few more standard libraries, and nothing else. The engine is
// sandboxed (no files, no exit, no environment variables) and every call into a plugin has a
// time limit: a plugin that hangs is stopped and disabled, the others go on.
// Usage: plugin_host PLUGIN.scm...   (exits 0 when the service behaved as expected)
#include <quasi/quasi.hpp>

#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

struct Message {
  std::string sender;
  std::string text;
  std::vector<std::string> words() const {
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  }
};

struct Plugin {
  std::string file;
  quasi::Environment env;
  bool enabled = true;
};

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: plugin_host PLUGIN.scm...\n";
    return 2;
  }
  quasi::Engine::Options options = quasi::Engine::Options::sandboxed();
  options.allowed_libraries = std::vector<std::string>{"(scheme base)", "(scheme char)", "(scheme write)"};
  options.time_limit = std::chrono::milliseconds(200);
  quasi::Engine engine(options);

  // The host library: what plugins may see of the service.
  std::vector<std::string> log;
  quasi::Library host = engine.define_library("(plugin host)");
  host.define_type<Message>("message")
      .readonly("sender", &Message::sender)
      .readonly("text", &Message::text)
      .method("words", &Message::words);
  host.define("log!", [&log](std::string line) { log.push_back(line); }).set("host-version", "1.0");

  std::vector<Plugin> plugins;
  for (int i = 1; i < argc; i++) {
    Plugin p{argv[i], engine.new_environment({"(scheme base)", "(plugin host)"})};
    try {
      p.env.load(p.file);  // the host chooses the file; the script itself can open none
      std::cout << "loaded " << p.env.get<std::string>("name") << '\n';
      plugins.push_back(std::move(p));
    } catch (const quasi::Error& e) {
      std::cout << "cannot load " << p.file << ": " << e.what() << '\n';
    }
  }

  int failures = plugins.size() == 3 ? 0 : 1;
  int stopped = 0, contained = 0;
  const Message chat[] = {{"ann", "hello there"}, {"bob", "peek"}, {"cy", "hi all"},
                          {"bob", "spin"},        {"ann", "stats"}};
  for (const Message& m : chat) {
    for (Plugin& p : plugins) {
      if (!p.enabled) continue;
      std::string who = p.env.get<std::string>("name");
      try {
        quasi::Value reply = p.env.call("on-message", engine.make(m));
        if (reply.is_true()) std::cout << who << " -> " << m.sender << ": " << reply.as<std::string>() << '\n';
      } catch (const quasi::Error& e) {
        std::cout << who << " failed on \"" << m.text << "\": " << e.message() << '\n';
        if (e.kind() == "limit") {
          p.enabled = false;  // a plugin that hangs does not get another chance
          stopped++;
        } else {
          contained++;
        }
      }
    }
  }
  for (Plugin& p : plugins) std::cout << "summary: " << p.env.call("summary") << '\n';

  // The plugins' definitions stayed apart: three `name`s, none of them a global of the engine.
  if (engine.contains("name") || engine.contains("on-message")) failures++;
  if (stopped != 1 || contained != 1) failures++;
  std::cout << (failures ? "FAILED\n" : "ok\n");
  return failures ? 1 : 0;
}
