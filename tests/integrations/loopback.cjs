// Preloaded into Node peers the tests start (node --require loopback.cjs ...): every listening
// socket binds 127.0.0.1 only, whatever host the peer asked for (server-everything asks for none).
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || typeof args[0] === "string") {
    const port = args[0];
    const rest = args.slice(1).filter((a) => typeof a === "function" || typeof a === "number");
    return listen.call(this, port, "127.0.0.1", ...rest.filter((a) => typeof a === "function"));
  }
  if (args[0] && typeof args[0] === "object" && !("path" in args[0])) {
    args[0] = { ...args[0], host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};
