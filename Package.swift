// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "wkstore",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "WebsiteData", targets: ["WebsiteData"]),
        .library(name: "WebsiteDataHTTP", targets: ["WebsiteDataHTTP"]),
        .executable(name: "wkstore", targets: ["wkstore"]),
        .executable(name: "wkstore-bench", targets: ["wkstore-bench"]),
        .executable(name: "wkstore-stress", targets: ["wkstore-stress"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CPSL",
            pkgConfig: "libpsl",
            providers: [.apt(["libpsl-dev"]), .brew(["libpsl"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        .systemLibrary(
            name: "CPostgreSQL",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"]), .brew(["lz4"])]
        ),
        .systemLibrary(
            name: "CSnappy",
            pkgConfig: "snappy",
            providers: [.apt(["libsnappy-dev"]), .brew(["snappy"])]
        ),
        // Debian's libleveldb-dev has no pkg-config file: the header and library are on the default paths.
        .systemLibrary(
            name: "CLevelDB",
            providers: [.apt(["libleveldb-dev"]), .brew(["leveldb"])]
        ),
        // libsecret is loaded when first used and its header not included (see its shim.h).
        .systemLibrary(
            name: "CSecret",
            providers: [.apt(["libsecret-1-dev"]), .brew(["libsecret"])]
        ),
        .target(name: "CWebsiteDataSupport"),
        .executableTarget(name: "MigrationEmbedder"),
        .plugin(
            name: "EmbedMigrations",
            capability: .buildTool(),
            dependencies: ["MigrationEmbedder"]
        ),
        .target(
            name: "WebsiteData",
            dependencies: [
                "CSQLite", "CPSL", "CPostgreSQL", "CCrypto", "CLZ4", "CSnappy", "CLevelDB", "CSecret",
                "CWebsiteDataSupport",
            ],
            exclude: ["Cookies/Lookup/README.md", "Cache/FreshHit/README.md"],
            plugins: ["EmbedMigrations"]
        ),
        .target(
            name: "WebsiteDataHTTP",
            dependencies: ["WebsiteData", "CCurl"]
        ),
        .executableTarget(
            name: "wkstore",
            dependencies: ["WebsiteData", "WebsiteDataHTTP"]
        ),
        .executableTarget(
            name: "wkstore-bench",
            dependencies: ["WebsiteData", "WebsiteDataHTTP", "CSQLite", "CPostgreSQL", "PostgreSQLCluster"]
        ),
        .executableTarget(
            name: "wkstore-stress",
            dependencies: ["WebsiteData"]
        ),
        .executableTarget(
            name: "wkstore-fuzz",
            dependencies: ["WebsiteData"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        // A private PostgreSQL cluster and child processes, for the tests and wkstore-bench.
        .target(name: "PostgreSQLCluster", dependencies: ["CPostgreSQL"], path: "Tests/PostgreSQLCluster"),
        .target(
            name: "WebsiteDataTestSupport", dependencies: ["WebsiteData", "CPostgreSQL", "PostgreSQLCluster"],
            path: "Tests/WebsiteDataTestSupport"),
        .testTarget(
            name: "WebsiteDataTests",
            dependencies: ["WebsiteData", "CSQLite", "WebsiteDataTestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "WebsiteDataHTTPTests",
            dependencies: ["WebsiteDataHTTP", "WebsiteData", "CCurl", "WebsiteDataTestSupport"]
        ),
        .testTarget(
            name: "wkstoreTests",
            dependencies: ["WebsiteData", "WebsiteDataTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
