env                       = "prod"
orders_visibility_timeout = 60
