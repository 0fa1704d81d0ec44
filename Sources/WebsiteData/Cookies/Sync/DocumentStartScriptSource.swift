/// The JavaScript of document-start cookie scripts.
///
/// The source is fixed text around string literals made by `JavaScriptStringLiteral`; the fixed text
/// holds no `<`, so the whole source can sit in an inline `<script>` element. Everything the script
/// uses after the page's own scripts may have run (`Object.defineProperty`, `Reflect.apply`, the
/// original `document.cookie` setter) is captured when it starts.
enum DocumentStartScriptSource {
    /// The source that writes `lines` to `document.cookie` when the page's host is `hostname`, then,
    /// when `messageHandler` is given, forwards every later `document.cookie` write to
    /// `window.webkit.messageHandlers[messageHandler].postMessage({cookie, url})`.
    ///
    /// - Parameters:
    ///   - lines: the `document.cookie` strings, in the order to write them.
    ///   - hostname: `location.hostname` of the pages the cookies are for (IPv6 in brackets).
    ///   - messageHandler: a validated handler name, or `nil` for no reports.
    static func make(lines: [String], hostname: String, messageHandler: String?) -> String {
        var source = """
            (function () {
              "use strict";
              // wkstore: recreate the store's cookies for this page (generated; do not edit).
              var doc = document, win = window, loc = location;
              var host = \(JavaScriptStringLiteral.quoted(hostname));
              var cookies = \(JavaScriptStringLiteral.array(lines, indent: "  "));
              if (loc.hostname === host) {
                for (var i = 0; i !== cookies.length; i += 1) {
                  try { doc.cookie = cookies[i]; } catch (e) {}
                }
              }

            """
        if let messageHandler {
            source += """
                  // Report every later document.cookie write, so the store keeps what script sets.
                  var handlerName = \(JavaScriptStringLiteral.quoted(messageHandler));
                  var define = Object.defineProperty, apply = Reflect.apply;
                  var proto = win.Document && win.Document.prototype;
                  var descriptor = proto && Object.getOwnPropertyDescriptor(proto, "cookie");
                  if (!descriptor || typeof descriptor.set !== "function" || !descriptor.configurable) { return; }
                  var originalSet = descriptor.set;
                  var report = function (text) {
                    try {
                      var bridge = win.webkit;
                      var handlers = bridge && bridge.messageHandlers;
                      var handler = handlers && handlers[handlerName];
                      if (handler && typeof handler.postMessage === "function") {
                        handler.postMessage({ cookie: text, url: `${loc.href}` });
                      }
                    } catch (e) {}
                  };
                  define(proto, "cookie", {
                    configurable: true,
                    enumerable: descriptor.enumerable,
                    get: descriptor.get,
                    set: function (value) {
                      var text = `${value}`;
                      apply(originalSet, this, [text]);
                      if (this === doc) { report(text); }
                    }
                  });

                """
        }
        source += "})();\n"
        return source
    }
}
