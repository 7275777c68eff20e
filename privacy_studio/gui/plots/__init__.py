"""Plot tabs: each builds its pyqtgraph items once and updates them with ``setData`` per partial result."""
