/// The tests reach the private PostgreSQL cluster and child processes through this target.
@_exported import PostgreSQLCluster
