extension WebsiteDataStore {
    /// The store's localStorage: per origin, persistent in a persistent store.
    public var localStorage: LocalStorage { component(LocalStorage.self) }

    /// The store's sessionStorage: per namespace and origin, in this process's memory only.
    public var sessionStorage: SessionStorage { component(SessionStorage.self) }

    /// The store's WebSQL-style databases: per origin, named SQLite databases.
    public var webSQLDatabases: WebSQLStorage { component(WebSQLStorage.self) }

    /// The store's offline web application caches: per origin, groups keyed by manifest URL.
    public var applicationCache: ApplicationCacheStorage { component(ApplicationCacheStorage.self) }
}
