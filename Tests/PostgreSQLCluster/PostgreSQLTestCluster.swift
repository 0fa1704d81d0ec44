import CPostgreSQL
import Foundation
import Synchronization

/// A private PostgreSQL cluster for tests: its own data directory under the temporary folder,
/// a Unix socket there, and 127.0.0.1 on a free port; stopped and removed when the test process
/// exits.
///
/// The server runs with PostgreSQL's default durability (fsync on), as a fleet's would. As root,
/// the cluster belongs to the `postgres` user (`initdb` refuses to run as root) and its commands
/// run through `runuser`; otherwise it belongs to the user running the tests. Local connections
/// are trusted; over TCP, the role `passwordRole` must give its password (scram-sha-256), so a
/// test can check what a refused password does, and every other role is trusted.
public final class PostgreSQLTestCluster: Sendable {
    /// The folder holding the data directory, the socket and the logs.
    public let directory: URL
    /// The TCP port on 127.0.0.1, also the number of the socket's file.
    public var port: Int { portNumber.withLock { $0 } }
    private let portNumber = Mutex<Int>(0)
    /// The superuser's name.
    public let user = "wk"
    /// A role that must give its password over TCP (see `tcpConnectionString(user:password:database:)`).
    public static let passwordRole = "wk_password"
    /// The password of `passwordRole`, with a quote and a backslash in it, so that a test sees
    /// whether quoting holds.
    public static let rolePassword = "Corr3ct-H0rse'battery\\staple"

    /// Where the PostgreSQL programs are: `WKSTORE_POSTGRES_BIN`, or Debian's folder of the newest
    /// installed version.
    static let binaries: URL = {
        if let folder = ProcessInfo.processInfo.environment["WKSTORE_POSTGRES_BIN"] {
            return URL(fileURLWithPath: folder)
        }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap { Int($0) }
        return URL(fileURLWithPath: "\(root)/\(versions.max() ?? 15)/bin")
    }()

    private var data: URL { directory.appendingPathComponent("data") }

    /// Creates a cluster and starts it.
    ///
    /// - Throws: `PostgreSQLTestClusterError` when `initdb` or `pg_ctl` fails (its output is in the error).
    public init() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "wkstore-pg-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        registry.withLock { $0.append(directory) }
        if getuid() == 0 {
            try Self.run("/bin/chown", ["postgres", directory.path], log: nil)
        }
        try Self.startWatchdog(directory)
        try runAsOwner(
            "initdb", ["-D", data.path, "-A", "trust", "-U", user, "-E", "UTF8", "--locale=C"],
            log: directory.appendingPathComponent("initdb.log"))
        let hba = """
            local all all trust
            host all \(Self.passwordRole) 127.0.0.1/32 scram-sha-256
            host all all 127.0.0.1/32 trust

            """
        try hba.write(to: data.appendingPathComponent("pg_hba.conf"), atomically: false, encoding: .utf8)
        // The free port may be taken by another program before the server binds it: then
        // another one is tried.
        for attempt in 1...5 {
            portNumber.withLock { $0 = Self.freePort() }
            do {
                try start()
                break
            } catch let error as PostgreSQLTestClusterError where attempt < 5 {
                let log =
                    (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
                guard log.contains("Address already in use") else { throw error }
            }
        }
    }

    /// Starts the server (again, after `stop`), and waits until it accepts connections.
    ///
    /// - Throws: `PostgreSQLTestClusterError` when it does not start.
    public func start() throws {
        // Tests running side by side each hold stores of three connections. Durability stays
        // PostgreSQL's default (fsync and synchronous_commit on): a test of what survives a
        // stopped server proves nothing on a server that does not flush.
        let options = "-k \(directory.path) -p \(port) -c listen_addresses=127.0.0.1 -c max_connections=500"
        try runAsOwner(
            "pg_ctl",
            [
                "-D", data.path, "-w", "-t", "300", "-o", options, "-l",
                directory.appendingPathComponent("server.log").path, "start",
            ],
            log: directory.appendingPathComponent("pg_ctl.log"))
    }

    /// Stops the server.
    ///
    /// - Parameter immediate: stop as a crash would (`-m immediate`: no checkpoint, clients cut
    ///   off; the next start recovers from the WAL); otherwise a fast, clean shutdown.
    /// - Throws: `PostgreSQLTestClusterError` when `pg_ctl` fails.
    public func stop(immediate: Bool = true) throws {
        try runAsOwner(
            "pg_ctl", ["-D", data.path, "-w", "-t", "300", "-m", immediate ? "immediate" : "fast", "stop"],
            log: directory.appendingPathComponent("pg_ctl.log"))
    }

    /// Makes the server accept TLS with a certificate for `localhost` signed by a certificate
    /// authority made here (`openssl`), then restarts it. TCP connections may then use TLS;
    /// plain ones are still accepted.
    ///
    /// - Returns: the authority's certificate, for a client's `sslrootcert`.
    /// - Throws: `PostgreSQLTestClusterError` when `openssl` or the restart fails.
    public func enableTLS() throws -> URL {
        let tls = directory.appendingPathComponent("tls")
        try FileManager.default.createDirectory(at: tls, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("openssl.log")
        func path(_ name: String) -> String { tls.appendingPathComponent(name).path }
        let openssl = "/usr/bin/openssl"
        try Self.run(
            openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=wkstore test CA",
                "-keyout", path("ca.key"), "-out", path("ca.crt"),
            ], log: log)
        try Self.run(
            openssl,
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", path("server.key"),
                "-out", path("server.csr"),
            ], log: log)
        try "subjectAltName=DNS:localhost\n".write(toFile: path("san.ext"), atomically: false, encoding: .utf8)
        try Self.run(
            openssl,
            [
                "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"),
                "-CAcreateserial", "-days", "2", "-extfile", path("san.ext"), "-out", path("server.crt"),
            ], log: log)
        for name in ["server.crt", "server.key"] {
            let target = data.appendingPathComponent(name).path
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: path(name), toPath: target)
            // The server refuses a key others may read.
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target)
            if getuid() == 0 { try Self.run("/bin/chown", ["postgres", target], log: nil) }
        }
        let conf = data.appendingPathComponent("postgresql.conf")
        let handle = try FileHandle(forWritingTo: conf)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\nssl = on\n".utf8))
        try handle.close()
        try stop(immediate: false)
        try start()
        return tls.appendingPathComponent("ca.crt")
    }

    /// A connection string over the Unix socket.
    ///
    /// - Parameter database: the database to connect to.
    /// - Returns: a libpq keyword string.
    public func socketConnectionString(database: String = "postgres") -> String {
        "host=\(directory.path) port=\(port) user=\(user) dbname=\(database)"
    }

    /// A connection string over TCP to 127.0.0.1.
    ///
    /// - Parameters:
    ///   - user: the role (`passwordRole` needs a password), by default the superuser.
    ///   - password: the password to send, if any.
    ///   - database: the database to connect to.
    /// - Returns: a libpq keyword string.
    public func tcpConnectionString(user: String? = nil, password: String? = nil, database: String = "postgres")
        -> String
    {
        var text = "host=127.0.0.1 port=\(port) user=\(user ?? self.user) dbname=\(database) connect_timeout=60"
        if let password { text += " password=\(quoteConnectionValue(password))" }
        return text
    }

    /// Creates `passwordRole` with `rolePassword` and the right to log in, unless it exists.
    ///
    /// - Throws: `PostgreSQLTestClusterError` when the server refuses.
    public func makePasswordRole() throws {
        // CREATE ROLE takes no parameters: the password is a literal, quoted by the server's rules.
        let literal = "'" + Self.rolePassword.replacingOccurrences(of: "'", with: "''") + "'"
        do {
            try PostgreSQLTestServer.administer(
                socketConnectionString(), "CREATE ROLE \(Self.passwordRole) LOGIN PASSWORD \(literal)")
        } catch let error as PostgreSQLTestClusterError where error.message.contains("already exists") {
            // Made by another test of this process; tests running side by side may race to make it.
        }
    }

    private func runAsOwner(_ program: String, _ arguments: [String], log: URL) throws {
        let path = Self.binaries.appendingPathComponent(program).path
        if getuid() == 0 {
            try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments, log: log)
        } else {
            try Self.run(path, arguments, log: log)
        }
    }

    /// Runs a program to its end, its output appended to `log`.
    static func run(_ path: String, _ arguments: [String], log: URL?) throws {
        let process = try spawn(path, arguments, log: log)
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let text = log.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
            throw PostgreSQLTestClusterError(
                message:
                    "\(path) \(arguments.joined(separator: " ")) ended with status \(process.terminationStatus): \(text.suffix(2000))"
            )
        }
    }

    /// Starts a program with standard input from `/dev/null`, its output appended to `log`, and
    /// no other descriptor of this process (`Subprocess`): on Linux, Foundation's `Process`
    /// learns that a child ended when every holder of a socket it gives the child has closed it.
    /// A server started with the test process's descriptors would keep, for as long as it runs,
    /// the sockets of every child other tests were starting at that moment, and those tests
    /// would wait for their children forever.
    static func spawn(_ path: String, _ arguments: [String], log: URL?) throws -> Subprocess {
        let process = Subprocess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let output: FileHandle
        if let log {
            let descriptor = open(log.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw PostgreSQLTestClusterError(
                    message: "cannot open \(log.path): \(String(cString: strerror(errno)))")
            }
            output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        } else {
            output = FileHandle.nullDevice
        }
        process.standardOutput = output
        process.standardError = output
        do { try process.run() } catch {
            throw PostgreSQLTestClusterError(message: "cannot start \(path): \(error)")
        }
        return process
    }

    /// A TCP port on 127.0.0.1 held, bound but not listening, for as long as the value lives: a
    /// connection to it is refused at once, and no server started meanwhile (a cluster of another
    /// test) can take it, as it could a port found free a moment ago.
    public final class RefusingPort: Sendable {
        /// The port number.
        public let port: Int
        private let descriptor: Int32

        /// Binds a socket to a free port of 127.0.0.1.
        public init() {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            port = PostgreSQLTestCluster.bindToFreePort(descriptor)
        }

        deinit { close(descriptor) }
    }

    /// A TCP port of 127.0.0.1 whose listener resets every connection as soon as it has it, as a
    /// server being stopped may; the listener closes when the value is released.
    public final class ResettingPort: Sendable {
        /// The port number.
        public let port: Int
        private let descriptor: Int32

        /// Listens on a free port of 127.0.0.1, and resets what comes, on a thread of its own.
        public init() {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            port = PostgreSQLTestCluster.bindToFreePort(descriptor)
            listen(descriptor, 16)
            let listener = descriptor
            Thread.detachNewThread {
                while true {
                    let client = accept(listener, nil, nil)
                    guard client >= 0 else { return }
                    // Closed with a linger of zero: a reset, not an orderly end.
                    var reset = linger(l_onoff: 1, l_linger: 0)
                    setsockopt(client, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
                    close(client)
                }
            }
        }

        deinit {
            // Ends the thread's `accept`.
            shutdown(descriptor, Int32(SHUT_RDWR))
            close(descriptor)
        }
    }

    /// A TCP port on 127.0.0.1 that nothing listened on a moment ago.
    ///
    /// - Returns: the port.
    public static func freePort() -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        return bindToFreePort(descriptor)
    }

    /// Binds `descriptor` to a free port of 127.0.0.1; returns the port.
    static func bindToFreePort(_ descriptor: Int32) -> Int {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length)
                return getsockname(descriptor, pointer, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Starts a shell that stops the server and removes the folder once this process is gone, so
    /// a test process that crashes or is killed leaves no server behind. At a normal exit, the
    /// `atexit` handler has done it first.
    private static func startWatchdog(_ directory: URL) throws {
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            pid=$(head -n 1 "$0/data/postmaster.pid" 2>/dev/null) && kill -QUIT "$pid" 2>/dev/null
            for i in $(seq 1 60); do [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break; sleep 1; done
            rm -rf "$0"
            """
        // Not waited for: it ends after this process; init (the system's) reaps it.
        _ = try spawn("/bin/sh", ["-c", script, directory.path], log: nil)
        _ = installExitHandler
    }
}

/// A cluster command that failed.
public struct PostgreSQLTestClusterError: Error, CustomStringConvertible {
    /// What failed, with the command's output.
    public let message: String
    /// The message.
    public var description: String { message }

    /// An error saying `message`.
    public init(message: String) { self.message = message }
}

/// The folders of the clusters this process started, for the exit handler.
private let registry = Mutex<[URL]>([])

/// Stops every cluster of this process at exit: a signal to each postmaster (SIGINT, a fast
/// shutdown), a wait for it to go, and the folder removed.
private let installExitHandler: Void = {
    atexit {
        let folders = registry.withLock { $0 }
        var servers: [pid_t] = []
        for folder in folders {
            let file = folder.appendingPathComponent("data/postmaster.pid")
            if let text = try? String(contentsOf: file, encoding: .utf8),
                let line = text.split(separator: "\n").first, let pid = pid_t(line)
            {
                kill(pid, SIGINT)
                servers.append(pid)
            }
        }
        // A fast shutdown takes a checkpoint; on a loaded machine that can take seconds.
        for pid in servers {
            var waited = 0
            while kill(pid, 0) == 0, waited < 600 {
                usleep(100_000)
                waited += 1
            }
        }
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
    }
}()

/// `value` quoted for a libpq keyword string: in single quotes, with `\` and `'` escaped.
public func quoteConnectionValue(_ value: String) -> String {
    "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
}

/// The server the PostgreSQL tests use, and a fresh database on it for each test.
///
/// With `WKSTORE_TEST_POSTGRES` set (a libpq connection URI or keyword string for a role that
/// may create databases), that server; otherwise one private `PostgreSQLTestCluster`, started
/// the first time a test asks, for the whole test process.
public enum PostgreSQLTestServer {
    /// The shared private cluster, or `nil` when `WKSTORE_TEST_POSTGRES` names the server.
    ///
    /// - Throws: the cluster's error when it cannot start.
    public static func privateCluster() throws -> PostgreSQLTestCluster? {
        if external != nil { return nil }
        return try shared.withLock { state in
            if let cluster = state { return cluster }
            let cluster = try PostgreSQLTestCluster()
            state = cluster
            return cluster
        }
    }

    /// A libpq keyword string of the test server (host, port, user, database) as the
    /// `postgresql://` URI a user gives `--store`.
    ///
    /// - Parameter keywords: a keyword string, as `freshDatabase` gives.
    /// - Returns: the URI.
    public static func uri(_ keywords: String) -> String {
        var values: [String: String] = [:]
        if let options = PQconninfoParse(keywords, nil) {
            var option = options
            while let keyword = option.pointee.keyword {
                if let value = option.pointee.val.map({ String(cString: $0) }), !value.isEmpty {
                    values[String(cString: keyword)] = value
                }
                option += 1
            }
            PQconninfoFree(options)
        }
        var query = URLComponents()
        query.queryItems = ["host", "port", "password", "sslmode", "sslrootcert"].compactMap { key in
            values[key].map { URLQueryItem(name: key, value: $0) }
        }
        let user =
            values["user"].map { ($0.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? $0) + "@" } ?? ""
        return "postgresql://\(user)/\(values["dbname"] ?? "postgres")?" + (query.percentEncodedQuery ?? "")
    }

    /// Whether the tests start their own cluster (`WKSTORE_TEST_POSTGRES` is not set).
    public static var startsItsOwnCluster: Bool { external == nil }

    /// A new, empty database on the test server, dropped when the value is released.
    ///
    /// - Throws: when the server cannot be started or reached, or refuses `CREATE DATABASE`.
    public static func freshDatabase() throws -> PostgreSQLTestDatabase {
        let base = try external ?? privateCluster()!.socketConnectionString()
        let name =
            "wk_\(getpid())_\(counter.add(1, ordering: .relaxed).newValue)_\(UUID().uuidString.prefix(8).lowercased())"
        try administer(base, "CREATE DATABASE \"\(name)\"")
        return PostgreSQLTestDatabase(name: name, connectionString: connectionString(base, database: name), base: base)
    }

    private static let external: String? = {
        let value = ProcessInfo.processInfo.environment["WKSTORE_TEST_POSTGRES"]
        return value?.isEmpty == false ? value : nil
    }()
    private static let shared = Mutex<PostgreSQLTestCluster?>(nil)
    private static let counter = Atomic<Int>(0)

    /// `base` with its database replaced by `database`, as a keyword string.
    static func connectionString(_ base: String, database: String) -> String {
        var parts: [String] = []
        if let options = PQconninfoParse(base, nil) {
            var option = options
            while let keyword = option.pointee.keyword {
                let name = String(cString: keyword)
                if name != "dbname", let value = option.pointee.val.map({ String(cString: $0) }), !value.isEmpty {
                    parts.append("\(name)=\(quoteConnectionValue(value))")
                }
                option += 1
            }
            PQconninfoFree(options)
        }
        parts.append("dbname=\(quoteConnectionValue(database))")
        return parts.joined(separator: " ")
    }

    /// Runs one statement on the server's `postgres` database.
    static func administer(_ base: String, _ sql: String) throws {
        guard let connection = PQconnectdb(connectionString(base, database: "postgres")) else {
            throw PostgreSQLTestClusterError(message: "out of memory")
        }
        defer { PQfinish(connection) }
        guard PQstatus(connection) == CONNECTION_OK else {
            throw PostgreSQLTestClusterError(
                message: "cannot connect to the test server: \(String(cString: PQerrorMessage(connection)))")
        }
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK || PQresultStatus(result) == PGRES_TUPLES_OK else {
            throw PostgreSQLTestClusterError(message: "\(sql): \(String(cString: PQerrorMessage(connection)))")
        }
    }
}

/// A database of its own for one test; dropped (its connections cut) when released.
public final class PostgreSQLTestDatabase: Sendable {
    /// The database's name.
    public let name: String
    /// A libpq keyword string that connects to it.
    public let connectionString: String
    private let base: String

    init(name: String, connectionString: String, base: String) {
        self.name = name
        self.connectionString = connectionString
        self.base = base
    }

    deinit { try? PostgreSQLTestServer.administer(base, "DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)") }
}
