env                 = "prod"
payments_timeout    = 120
payments_visibility = 600
