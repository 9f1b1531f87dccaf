import Foundation

/// A real nginx for the deployment tests, running a configuration the repository ships.
public enum Nginx {
    /// The nginx binary, when installed.
    public static let binary: String? = ["/usr/sbin/nginx", "/usr/bin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// A whole `nginx.conf` that runs the shipped `deploy/nginx/NAME` (its `http { }` part)
    /// in the foreground with every path under `directory`, after the replacements (each
    /// replaced text must be there exactly once, so the shipped file cannot drift from what
    /// is tested).
    /// - Throws: `Tools.ToolError` naming a text that is not there exactly once.
    public static func configuration(shipped name: String, replacing: [(String, String)], directory: String) throws
        -> String
    {
        let path = Fixtures.root.appendingPathComponent("deploy/nginx/" + name).path
        var text = try String(contentsOfFile: path, encoding: .utf8)
        for (from, to) in replacing {
            let parts = text.components(separatedBy: from)
            guard parts.count == 2 else {
                throw Tools.ToolError(message: "deploy/nginx/\(name): '\(from)' should appear once")
            }
            text = parts.joined(separator: to)
        }
        return """
            user root;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log;
            daemon off;
            events { worker_connections 256; }
            http {
              access_log \(directory)/access.log;
              client_body_temp_path \(directory)/body;
              proxy_temp_path \(directory)/proxy;
              fastcgi_temp_path \(directory)/fastcgi;
              uwsgi_temp_path \(directory)/uwsgi;
              scgi_temp_path \(directory)/scgi;
              \(text)
            }

            """
    }
}
